"""Views over scores: the metric@k grid and per-question diagnostics."""
