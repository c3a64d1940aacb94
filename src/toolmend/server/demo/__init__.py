"""`toolmend demo`: the proxy against a scripted upstream replaying real failure cases."""
