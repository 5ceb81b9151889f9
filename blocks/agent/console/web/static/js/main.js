// octo console
