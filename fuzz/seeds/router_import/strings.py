x = b"\x00" + rb"\d" + f"{a!r:>{w}}" + """tri
ple""" + u"\N{BULLET}"
