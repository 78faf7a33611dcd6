# Citations cannot go stale: test/support/check_citations.pl over the whole source tree finds no
# comment or document that cites a missing file, heading, anchor or § number (docs/development.md
# "Citations"). First the checker itself, on a small tree with one good and one broken citation of
# every kind, in Markdown and in C++ and shell comments: it must report exactly the broken ones.
use strict;
use warnings;
use utf8;
use File::Temp qw(tempdir);
use Test::More;
use TreeChecker qw(write_file run_checker);

my $src = $ENV{KLMS_SOURCE_DIR} or die "KLMS_SOURCE_DIR is not set\n";
my $checker = "$src/test/support/check_citations.pl";

sub check { return run_checker($checker, $_[0]); }

# --- the checker's own test ----------------------------------------------------------------------
my $tree = tempdir(CLEANUP => 1);
write_file("$tree/docs/page.md", <<'EOF');
# Page

## Some heading

## With `cmake --install`

### §1 First rule

## Twice

## Twice

<a name="explicit"></a>Text.

```sh
# not a heading: in a fence
```
EOF
write_file("$tree/state/real.h", "// nothing\n");
write_file("$tree/hashes/lsh/x.cpp", "// nothing\n");
write_file("$tree/test/x_one.t", "# nothing\n");
write_file("$tree/good.md", <<'EOF');
# Good

Files: `state/real.h`, state/real.h/.h, `hashes/lsh/`, real.h, `test/x_*.t`, <openssl/evp.h>, openssl/pem.h.
Sections: docs/page.md §1, docs/page.md "Some heading", docs/page.md "With cmake --install",
docs/page.md "First rule", docs/page.md
"Some heading".
Links: [a](docs/page.md#some-heading) [b](docs/page.md#twice-1) [c](docs/page.md#explicit)
[d](#good) [e](https://example.com/missing.md#nowhere) [f](docs/page.md) [g](hashes/lsh/)
[h](docs/page.md#1-first-rule) [i](docs/page.md#with-cmake---install)
EOF
write_file("$tree/bad.md", <<'EOF');
# Bad

`state/missing.h`
`hashes/nothere/`
missing_name.h
docs/page.md §2
docs/page.md "No such heading"
[a](docs/missing.md)
[b](docs/page.md#no-such-anchor)
[c](#nowhere)
`test/y_*.t`
[d](docs/page.md#not-a-heading-in-a-fence)
EOF
write_file("$tree/lms/thing.cpp", <<'EOF');
// Good: state/real.h, real.h, docs/page.md §1, docs/page.md "Some heading", docs/page.md
// "Some heading" again.
const char* kNotAComment = "state/in_a_string.h docs/page.md §9";
/* Bad, in a block comment: state/gone.h */
// Bad: gone_name.h
// Bad: docs/page.md §3
// Bad: docs/page.md
// "Not there".
int x = 0;  // Bad after code: docs/gone.md
EOF
# The shell file's comment marker is written as % here, so that this file's own comments stay true.
(my $shell = <<'EOF') =~ s/^%|(?<=  )%/#/mg;
%!/bin/sh
% Good: state/real.h and docs/page.md §1
echo "state/in_a_string.h"
% Bad: lms/gone.cpp
x=1  % Bad after code: docs/page.md "Gone"
EOF
write_file("$tree/scripts/thing.sh", $shell);

my @expected = (
  [ 'bad.md', 3, 'state/missing.h' ],
  [ 'bad.md', 4, 'hashes/nothere' ],
  [ 'bad.md', 5, 'missing_name.h' ],
  [ 'bad.md', 6, '§2' ],
  [ 'bad.md', 7, 'No such heading' ],
  [ 'bad.md', 8, 'docs/missing.md' ],
  [ 'bad.md', 9, '#no-such-anchor' ],
  [ 'bad.md', 10, '#nowhere' ],
  [ 'bad.md', 11, 'test/y_*.t' ],
  [ 'bad.md', 12, '#not-a-heading-in-a-fence' ],
  [ 'lms/thing.cpp', 4, 'state/gone.h' ],
  [ 'lms/thing.cpp', 5, 'gone_name.h' ],
  [ 'lms/thing.cpp', 6, '§3' ],
  [ 'lms/thing.cpp', 7, 'Not there' ],
  [ 'lms/thing.cpp', 9, 'docs/gone.md' ],
  [ 'scripts/thing.sh', 4, 'lms/gone.cpp' ],
  [ 'scripts/thing.sh', 5, 'Gone' ],
);
my ($status, @out) = check($tree);
is($status, 1, 'the checker fails on a tree with broken citations');
for my $e (@expected) {
  my ($file, $line, $what) = @$e;
  ok((grep { index($_, "$file:$line: ") == 0 && index($_, $what) >= 0 } @out),
     "broken citation found: $file:$line $what");
}
is(scalar @out, scalar @expected, 'and nothing else: every good citation passes')
  or diag join("\n", @out);

# Only the good ones: the checker passes.
unlink "$tree/bad.md", "$tree/lms/thing.cpp", "$tree/scripts/thing.sh" or die;
($status, @out) = check($tree);
is($status, 0, 'the checker passes a tree whose citations all resolve') or diag join("\n", @out);

# --- the source tree ----------------------------------------------------------------------------
($status, @out) = check($src);
is($status, 0, 'every citation in the source tree resolves') or diag join("\n", @out);

done_testing();
