import Testing

// Tests for this target arrive with the issue that builds it.
