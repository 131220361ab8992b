// Package cmdflag is what innosim's commands share in reading their flags:
// Parse, which hands a bad flag back as an error for the caller to print
// first, with a pointer to the command's help, where the flag package prints
// its message and then the whole usage under it; and DurationVar, a duration
// flag whose error says that a unit is needed ("5" is not 5 ms), where the
// flag package's says only "parse error".
package cmdflag
