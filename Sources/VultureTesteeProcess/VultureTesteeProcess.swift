// VultureTesteeProcess — another implementation run as a child process and driven over the testee
// protocol (Goldens/protocol/README.md): process start and restart, per-case timeouts, the testee's
// process group ended on exit and on SIGINT/SIGTERM/SIGHUP. Kept out of VultureConformance, the
// library an iOS test target imports (there is no Process, kill or getpgid on iOS); the
// `vulture-conformance` executable depends on both.
