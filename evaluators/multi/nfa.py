"""The multi-pattern lazy NFA (MCEP Section 3.1) over a multi-pattern tree (MPT).

One NFA for the whole workload, "organized in a tree-like topology formed by merging the common
prefixes of the chain-structured NFAs corresponding to each pattern"; each state keeps the widest
window of the patterns sharing it; each pattern has its final state.  It runs on the shared-join
runtime (:mod:`evaluators.multi.runtime`): state ``O[:k]`` is the prefix node, the state lists
``l_T`` are the leaves of type ``T``.
"""

NAME = "multi-nfa"
