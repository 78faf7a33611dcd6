# The libraries include one another only downward (docs/design.md "Libraries and layering"):
# test/support/check_layering.pl over the whole source tree finds no include that runs upward or
# sideways. First the checker itself, on a small tree with one allowed and one refused include of
# every kind: it must report exactly the refused ones.
use strict;
use warnings;
use File::Temp qw(tempdir);
use Test::More;
use TreeChecker qw(write_file run_checker);

my $src = $ENV{KLMS_SOURCE_DIR} or die "KLMS_SOURCE_DIR is not set\n";
my $checker = "$src/test/support/check_layering.pl";

sub check { return run_checker($checker, $_[0]); }

# --- the checker's own test ----------------------------------------------------------------------
my $tree = tempdir(CLEANUP => 1);
write_file("$tree/base/bytes.h", "#include <vector>\n");
write_file("$tree/hashes/backend.h", "#include \"base/bytes.h\"\n");
write_file("$tree/hashes/blockcipher/lea.h", "#include \"hashes/cpu_features.h\"\n#include \"base/endian.h\"\n");
write_file("$tree/hashes/tdm/tdm_lea.cpp", "#include \"hashes/blockcipher/lea.h\"\n#include \"hashes/backend.h\"\n");
write_file("$tree/state/store.h", "#include \"base/bytes.h\"\n#include \"klms/klms.h\"\n#include <openssl/evp.h>\n");
write_file("$tree/lms/signer.cpp", "#include \"state/store.h\"\n#include \"hashes/tdm/tdm_lea.h\"\n");
write_file("$tree/provider/key.cpp", "#include \"lms/signer.h\"\n#include \"key.h\"\n");
write_file("$tree/test/unit/anything.cpp", "#include \"provider/key.h\"\n");
my ($status, @out) = check($tree);
is($status, 0, 'a tree whose includes all run downward passes') or diag(join "\n", @out);
is_deeply(\@out, [], '... and nothing is reported');

# Each refused include alone in a copy of the good tree: exactly that line is reported.
my @refused = (
  ['hashes/blockcipher/cham.h', '#include "hashes/tdm/tdm_words.h"', 'a block cipher reaching up into Tandem-DM'],
  ['hashes/blockcipher/aria.h', '#include "hashes/family_table.h"', 'a family reaching the table above it'],
  ['base/error.h',              '#include "state/store.h"',         'base reaching up'],
  ['state/handle.cpp',          '#include "lms/signer.h"',          'the state store reaching into LMS'],
  ['lms/keygen.cpp',            '#include "provider/key.h"',        'the engine reaching into the provider'],
  ['xmss/tree.cpp',             '#include "lms/params.h"',          'K-XMSS reaching sideways into LMS'],
  ['witness/tpm/module.cpp',    '#include "state/handle.h"',        'a witness module reaching past its ABI header'],
  ['bench/study/x.cpp',         '#include "provider/key.h"',        'a benchmark reaching into the provider'],
  ['hashes/lsh/x.h',            '#include "klms/klms.h"',           'a hash family reaching the public header'],
  ['state/io.cpp',              '#include <lms/signer.h>',          'an upward include in angle brackets'],
);
for my $case (@refused) {
  my ($file, $line, $what) = @$case;
  my $copy = tempdir(CLEANUP => 1);
  system('cp', '-a', "$tree/.", $copy) == 0 or die "cp: $?\n";
  write_file("$copy/$file", "// a comment\n$line\n");
  my ($st, @lines) = check($copy);
  is($st, 1, "refused: $what");
  is(scalar @lines, 1, '... one line reported') or diag(join "\n", @lines);
  like($lines[0] // '', qr{^\Q$file\E:2: includes }, '... naming the file and line');
}

# A folder with sources and no rule is reported, so a new library cannot join unchecked.
{
  my $copy = tempdir(CLEANUP => 1);
  system('cp', '-a', "$tree/.", $copy) == 0 or die "cp: $?\n";
  write_file("$copy/newlib/a.cpp", "#include \"base/bytes.h\"\n");
  write_file("$copy/newlib/b.cpp", "#include \"base/bytes.h\"\n");
  my ($st, @lines) = check($copy);
  is($st, 1, 'a folder without a layering rule is refused');
  is(scalar @lines, 1, '... once per folder') or diag(join "\n", @lines);
  like($lines[0] // '', qr{newlib/ has sources but no layering rule}, '... saying so');
}

# A build tree inside the source tree (any name) is not read.
{
  my $copy = tempdir(CLEANUP => 1);
  system('cp', '-a', "$tree/.", $copy) == 0 or die "cp: $?\n";
  write_file("$copy/out/CMakeCache.txt", "# a build tree\n");
  write_file("$copy/out/generated/x.cpp", "#include \"provider/key.h\"\n");
  my ($st, @lines) = check($copy);
  is($st, 0, 'a build tree of any name is not read') or diag(join "\n", @lines);
}

# --- the real tree -------------------------------------------------------------------------------
($status, @out) = check($src);
is($status, 0, 'every include in the source tree runs downward') or diag(join "\n", @out);

done_testing();
