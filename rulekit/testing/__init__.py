"""Helpers for rulekit's own tests and for anyone testing code built on rulekit (needs hypothesis)."""
