"""Small statistics for lists of numbers."""
from statlite.summary import mean, spread
