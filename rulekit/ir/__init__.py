"""The tree IR: a networkx DiGraph per tree, wrapped with its schema and combiner in a Model."""

from rulekit.ir.model import Combiner, Feature, Model
from rulekit.ir.tree import TreeBuilder, validate_tree

__all__ = ["Combiner", "Feature", "Model", "TreeBuilder", "validate_tree"]
