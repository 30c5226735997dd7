"""The bottom layer: errors, warnings log, registries, argument checks, frozen maps and the word rule."""
