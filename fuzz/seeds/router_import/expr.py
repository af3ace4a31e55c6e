[x ** 2 for x in range(10) if x % 2] + [*a, *b][::-1]
