//! Unit tests of the reliability machine, one rule each.
