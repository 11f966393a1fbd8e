"""Adapters that plug pathrag_gds into other libraries (each needs its own pip extra)."""
