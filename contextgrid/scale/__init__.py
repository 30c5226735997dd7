"""Scoring beyond one process: a Dask engine for runs that do not fit in memory."""
