"""`rulekit studio`: a local web workbench for a rule base (see rulekit/studio/app.py)."""
