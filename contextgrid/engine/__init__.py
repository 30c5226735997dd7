"""The columnar engine under evaluate(): the ranked-grade matrix and whole-run kernels."""
