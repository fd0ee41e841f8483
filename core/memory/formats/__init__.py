"""The memory's file formats, byte-compatible with the original: YAML as js-yaml 3 reads and writes it,
JSON as JSON.stringify writes it, frontmatter as gray-matter frames it, and escaping.
"""
