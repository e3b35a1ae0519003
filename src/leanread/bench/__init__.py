"""Replays of real agent traces: the demo now, the anchor strategies and ``bench`` later."""
