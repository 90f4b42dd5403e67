"""Workload builders: the patterns or queries of each paper's experiments (JQPG, MCEP, NEXT, HAMLET, MOTTO)."""
