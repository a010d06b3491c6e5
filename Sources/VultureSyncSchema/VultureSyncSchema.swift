// VultureSyncSchema — the wire format of the Vulture sync schema: the generated document codecs and
// schema facts, deterministic ids, Storage objects (paths, gzip, SHA-256), the settings codec, and
// the reference encoder; no I/O beyond files. Values and their JSON forms come from
// VultureSchemaCore, which a client imports beside this module (nothing is re-exported).
import VultureSchemaCore
