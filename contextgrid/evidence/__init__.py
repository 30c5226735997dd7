"""Character-level evidence: gold spans resolved onto chunkings, character scores and per-run context waste."""
