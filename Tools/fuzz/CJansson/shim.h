// jansson (Debian: libjansson-dev), the reference JSON parser of the fuzz target json-differential only.
#include <jansson.h>
