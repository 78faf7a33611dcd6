#!/usr/bin/perl
# Two study reports side by side: every scheme-level row (results.csv) and every hash-level median
# (hash.csv) present in both, with after/before ratios, and per backend the geometric mean of the
# ratios. For "no behaviour change" steps (docs/design.md) and for before/after figures in notes.
#   bench/study/compare_runs.pl BEFORE_DIR AFTER_DIR [--threshold 1.10]
# Rows whose ratio lies outside [1/threshold, threshold] are marked; the machine is shared and noisy,
# so one marked row is a question, not a verdict: re-run that set and look again.
use strict;
use warnings;

my ($before, $after) = @ARGV[0, 1];
die "usage: compare_runs.pl BEFORE_DIR AFTER_DIR [--threshold X]\n" unless $before && $after;
my $threshold = 1.10;
for my $i (2 .. $#ARGV) { $threshold = $ARGV[$i + 1] if $ARGV[$i] eq '--threshold' && defined $ARGV[$i + 1] }

# CSV rows as hashes (fields may be quoted; quotes hold no newlines here).
sub read_csv {
  my ($file) = @_;
  open(my $fh, '<', $file) or die "compare_runs: $file: $!\n";
  my @rows;
  my @head;
  while (my $line = <$fh>) {
    chomp $line;
    my @f;
    while ($line =~ /\G(?:"([^"]*)"|([^,]*))(?:,|$)/g) {
      push @f, defined $1 ? $1 : $2;
      last if pos($line) >= length($line);
    }
    if (!@head) { @head = @f; next }
    my %r;
    @r{@head} = @f;
    push @rows, \%r;
  }
  return @rows;
}

my (%ratios, @lines, $marked);
sub compare {
  my ($kind, $key, $backend, $b, $a) = @_;
  return unless defined $b && defined $a && $b ne '' && $a ne '' && $b > 0 && $a > 0;
  my $ratio = $a / $b;
  push @{ $ratios{"$kind $backend"} }, $ratio;
  my $mark = ($ratio > $threshold || $ratio < 1 / $threshold) ? '  <--' : '';
  $marked++ if $mark;
  push @lines, sprintf("%-6s %-78s %12.3f %12.3f %6.3f%s", $kind, $key, $b, $a, $ratio, $mark);
}

# Scheme level: the median wall time of each (set, backend, op, parameter sets, threads).
my %b_rows;
for my $r (read_csv("$before/results.csv")) {
  next if ($r->{note} // '') =~ /^error/;
  $b_rows{ join '|', map { $r->{$_} // '' } qw(set backend op lms_type ots_type threads) } = $r;
}
for my $r (read_csv("$after/results.csv")) {
  my $k = join '|', map { $r->{$_} // '' } qw(set backend op lms_type ots_type threads);
  next unless $b_rows{$k};
  next if ($r->{note} // '') =~ /^error/;
  (my $short = $k) =~ s/\|/ /g;
  compare('scheme', $short, $r->{backend}, $b_rows{$k}{median_us}, $r->{median_us});
}

# Hash level: Google Benchmark medians per message.
my %b_hash;
for my $r (read_csv("$before/hash.csv")) {
  next unless ($r->{aggregate} // '') eq 'median';
  $b_hash{"$r->{name}|$r->{variant}"} = $r;
}
for my $r (read_csv("$after/hash.csv")) {
  next unless ($r->{aggregate} // '') eq 'median';
  my $k = "$r->{name}|$r->{variant}";
  next unless $b_hash{$k};
  my ($backend) = $r->{name} =~ m{^[^/]+/([^/]+)/};
  compare('hash', "$r->{name} ($r->{variant})", $backend // $r->{name}, $b_hash{$k}{ns_per_msg}, $r->{ns_per_msg});
}

printf "%-6s %-78s %12s %12s %6s\n", 'level', 'row', 'before', 'after', 'ratio';
print "$_\n" for @lines;
print "\nGeometric mean of after/before per backend (scheme rows in us, hash rows in ns per message):\n";
for my $k (sort keys %ratios) {
  my @r = @{ $ratios{$k} };
  my $log = 0;
  $log += log($_) for @r;
  printf "  %-32s %4d rows  %6.3f\n", $k, scalar @r, exp($log / @r);
}
printf "\n%d of %d rows outside [%.3f, %.3f]\n", $marked // 0, scalar @lines, 1 / $threshold, $threshold;
