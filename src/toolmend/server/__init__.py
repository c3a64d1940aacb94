"""The proxy: HTTP front-ends and the upstream client around the library."""
