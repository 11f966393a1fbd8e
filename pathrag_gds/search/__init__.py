"""The search's pure parts: chain planning (`planner`)."""
