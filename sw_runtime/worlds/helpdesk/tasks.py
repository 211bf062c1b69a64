TASKS = []
