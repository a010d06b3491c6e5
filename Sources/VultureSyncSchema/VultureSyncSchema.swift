// VultureSyncSchema — the wire format of the Vulture sync schema: the generated document codecs and
// schema facts, deterministic ids, Storage objects (paths, gzip, SHA-256), the settings codec, and
// the reference encoder; no I/O beyond files. Values and their JSON forms come from
// VultureSchemaCore, re-exported here so that one import gives the whole format.
@_exported import VultureSchemaCore
