// Package cmdflag is what innosim's commands share in reading their command
// lines, over the standard flag package:
//
//   - one error for a command line the command cannot run, *UsageError
//     (Usagef), which the command line maps to exit status 2 with errors.As;
//   - FlagSet, a flag.FlagSet whose help is the command's synopsis, its
//     description and its flags, whose Parse refuses a flag given twice and
//     hands a bad flag back as a *UsageError for the caller to print first
//     (the flag package prints its message and then the whole usage under
//     it), which reads flags among positional arguments too
//     (ParseInterspersed), and says which flags were given (Given,
//     Exclusive);
//   - the refusals a command declares of its flags alone, as a list of
//     Rules that Check checks after Parse: no stray argument (NoArgs),
//     flags that exclude each other (Exclusive), a required flag
//     (Required), a value among choices (OneOf, Choice), in a range
//     (Within), not empty (NotEmpty), that a function accepts (Valid), and
//     any other combination with its message (Refuse);
//   - flag values and readers of the forms the commands share: durations
//     whose error asks for a unit (DurationVar), lists of counts
//     (CountsVar), one key and its values ("key=v1,v2": KeyValues), and
//     key=value pairs ("units=1,read=5ms": Pairs).
package cmdflag
