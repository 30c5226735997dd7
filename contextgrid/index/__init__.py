"""Search indexes and what they return."""
