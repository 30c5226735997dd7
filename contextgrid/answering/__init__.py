"""Answers: contexts assembled from retrieved chunks, and lexical answer scores with no judge model."""
