package benchenv

import "io/fs"

// kernelRelease returns the kernel release as uname -r prints it, read from
// proc/sys/kernel/osrelease (the same string as uname(2)'s release field).
func kernelRelease(fsys fs.FS) string {
	data, err := fs.ReadFile(fsys, "proc/sys/kernel/osrelease")
	if err != nil {
		return Unknown
	}
	return orUnknown(string(data))
}
