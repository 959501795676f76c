def total(items):
    return sum(i.count for i in items)
