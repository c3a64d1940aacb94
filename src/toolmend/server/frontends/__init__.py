"""Front-end wire formats translated to and from the chat/completions pipeline.

Each module here is sans-IO: requests are dicts in and dicts out, streams are chunk dicts in and
event dicts out. The app (server/) owns sockets, the upstream and the response store's I/O.
"""
