# a cost profile for the command-line tests: old-kernel with a dearer system call
syscall = 200ns
