"""The back ends of commands: verify, the run estimate, the conformance suite, the standalone cluster and its fail-over check, text tables."""
