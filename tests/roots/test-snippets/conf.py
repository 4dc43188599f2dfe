extensions = ["errorkb"]
exclude_patterns = ["_build"]
