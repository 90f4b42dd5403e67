"""Evaluators of NEXT patterns (:mod:`cep.next_algebra`): the streaming operator engine, which also
measures each operator's CPU, and the reference matcher that applies the semantics literally."""
