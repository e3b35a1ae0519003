"""Benchmarks and replays: ``leanread demo`` and ``leanread bench ...`` (replay of real agent
traces against the anchors' behaviours, importers of agents' logs, the fuzzer, load, faults,
speed, grep, prune, documents, inspect).

Layer 10 of leanread (see ``docs/ARCHITECTURE.md``): may import every layer below the command
line; nothing of the product imports it (the command line runs it).
"""
