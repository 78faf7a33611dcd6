#!/usr/bin/perl
# Checks that the libraries include one another only downward (docs/design.md "Libraries and
# layering"). Usage: check_layering.pl [ROOT]  (default: the current directory).
# Prints one line per include that runs against the layering, FILE:LINE: what, and exits 1 if
# there is any, else 0.
#
# What it reads: every .h, .hpp, .cpp and .c file under the folders of %kRules, and of those only
# the project's own includes: `#include "folder/file"`, and `#include <folder/file>` whose first
# folder is one of the tree's top-level folders (the tree's top is on the include path, so that
# form compiles too); other headers in <...> are the system's. Build trees (any folder holding a
# CMakeCache.txt) are not read. A folder is ruled by its longest prefix in %kRules; a folder with sources
# and no rule is itself an error, so a new library cannot join the tree unchecked.
# An include is allowed when the included path starts with one of the rule's prefixes: a prefix
# ending in "/" allows a folder (and its subfolders), any other prefix one file.
use strict;
use warnings;
use File::Find;

# The hash families' own headers that their folders may include from the top of hashes/: the table
# entry type they fill in and the declarations of what they export to it (the table is above them,
# these interface headers are not), and the CPU features and path table of klms_cpu below them.
my @kFamilyInterface = qw(hashes/backend.h hashes/backend_members.h hashes/families.h hashes/digests.h
                          hashes/cpu_features.h hashes/cpu_paths.h base/endian.h);

# folder => the include prefixes it may use (its own folder is always allowed).
my %kRules = (
  'base/'               => [],
  'hashes/'             => ['hashes/', 'base/'],
  'hashes/lsh/'         => [@kFamilyInterface],
  'hashes/sha2/'        => [@kFamilyInterface],
  'hashes/keccak/'      => [@kFamilyInterface],
  'hashes/blockcipher/' => [@kFamilyInterface],
  'hashes/tdm/'         => [@kFamilyInterface, 'hashes/blockcipher/'],
  # The state store knows nothing of LMS: base, SHA-256 for its checksums (through the table's entry).
  'state/'              => ['base/', 'hashes/backend.h', 'hashes/sha2/', 'include/klms/'],
  # The stateful layer knows no scheme (stateful/scheme.h is what the schemes implement): the state
  # store, base, SHA-256 for key ids and parameters digests, the public header's names.
  'stateful/'           => ['state/', 'base/', 'hashes/backend.h', 'include/klms/'],
  # The engines implement the stateful layer's scheme interface.
  'xmss/'               => ['stateful/', 'state/', 'hashes/', 'base/'],
  'lms/'                => ['stateful/', 'state/', 'hashes/', 'base/', 'include/klms/'],
  'provider/'           => ['stateful/', 'lms/', 'xmss/', 'state/', 'hashes/', 'base/', 'include/klms/'],
  'tools/'              => ['lms/', 'xmss/', 'state/', 'hashes/', 'base/', 'include/klms/'],
  # The PKCS#11 module speaks to the engine only through pkcs11/engine/ (engine_bridge.h).
  'pkcs11/'             => ['base/'],
  'pkcs11/engine/'      => ['stateful/', 'lms/', 'state/', 'base/'],
  # Witness modules are loaded by state/ through one C ABI and link nothing of ours but base/.
  'witness/tpm/'        => ['state/witness_module_abi.h', 'base/'],
  'witness/etcd/'       => ['state/witness_module_abi.h', 'base/'],
  'include/klms/'       => [],
  # Benchmarks and examples sit above every library; they never reach into the provider or tools.
  'bench/'              => ['bench/', 'lms/', 'state/', 'xmss/', 'hashes/', 'base/', 'include/klms/'],
  'examples/'           => ['include/klms/'],
);
# Folders that are no library: tests, fuzzers and build trees are not layered.
my @kUnruled = qw(test/ build/ debian/ .git/ docs/ man/ conf/ cmake/ scripts/);

# The top-level folders of the tree: an <...> include starting with one of them is ours, not the
# system's (<klms/klms.h> is the public header and allowed where "klms/klms.h" is).
my $kOurTop = join '|', qw(base hashes state stateful xmss lms provider pkcs11 tools witness bench examples test);

# `#include "klms/klms.h"` names the public header by its install path (include/klms/klms.h).
sub resolve {
  my ($inc) = @_;
  return "include/$inc" if $inc =~ m{^klms/};
  return $inc;
}

sub rule_of {
  my ($dir) = @_;
  my $best;
  for my $prefix (keys %kRules) {
    next unless index("$dir/", $prefix) == 0;
    $best = $prefix if !defined $best || length $prefix > length $best;
  }
  return $best;
}

my $root = shift // '.';
chdir $root or die "$root: $!\n";
my @problems;
my %unruled_seen;
find({ no_chdir => 1, wanted => sub {
  my $path = $File::Find::name;
  $path =~ s{^\./}{};
  if (-d $_) {
    $File::Find::prune = 1 if (grep { index("$path/", $_) == 0 } @kUnruled) || -e "$_/CMakeCache.txt";
    return;
  }
  return unless $path =~ /\.(?:h|hpp|cpp|c)$/;
  my ($dir) = $path =~ m{^(.*)/[^/]+$};
  return unless defined $dir;  # the top level holds no sources
  my $rule = rule_of($dir);
  if (!defined $rule) {
    push @problems, "$path:1: folder $dir/ has sources but no layering rule (test/support/check_layering.pl)"
      unless $unruled_seen{$dir}++;
    return;
  }
  open my $fh, '<', $path or die "$path: $!\n";
  while (my $line = <$fh>) {
    my $inc;
    if ($line =~ /^\s*#\s*include\s+"([^"]+)"/) {
      $inc = resolve($1);
    } elsif ($line =~ m{^\s*#\s*include\s+<((?:$kOurTop)/[^>]+)>}) {
      $inc = $1;
    } else {
      next;
    }
    next unless $inc =~ m{/};  # a file beside it (generated or same-folder by bare name)
    my @allowed = ($rule, @{ $kRules{$rule} });
    next if grep { $_ =~ m{/$} ? index($inc, $_) == 0 : $inc eq $_ } @allowed;
    push @problems, "$path:$.: includes $inc, which $rule may not (allowed: @allowed)";
  }
  close $fh;
}}, '.');

print "$_\n" for sort @problems;
exit(@problems ? 1 : 0);
