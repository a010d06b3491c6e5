// VultureSchemaCore — what the generator and the runtime share without a bootstrap cycle: the
// Firestore value model, canonical typed JSON and Firestore REST JSON with their strict readers and
// typed errors, Firestore's writes (FieldPath, FirestoreWrite and their JSON forms; README "Writes"),
// and the descriptor types the generated schema tables are made of (Goldens/FORMAT.md).
