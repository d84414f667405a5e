# Example: A failing script with a traceback
#
# Ends with an exception: the traceback arrives on stderr and the run's exit status is 1.


def average(values):
    return sum(values) / len(values)


def report(groups):
    for name, values in groups.items():
        print(f"{name}: {average(values):.2f}")


report({"first": [3, 4, 5], "second": [10, 20], "empty": []})
