#!/usr/bin/env bash
# The time table of a test run (scripts/test.sh prints it at its end, on failure too):
#   scripts/ci-timing.sh [--stages FILE] [--total SECONDS] [BUILD_DIR...]
# - each stage's wall time and result, from FILE (default build/ci-stages.tsv, which scripts/test.sh
#   writes: name, seconds, result, CTest build tree);
# - per CTest build tree (the stages' own, else the BUILD_DIRs given, else every build/*/ with a
#   test log): its tests passed, skipped, failed, and the 10 slowest tests of all, from CTest's own
#   JUnit file (Testing/klms-junit.xml) or else its log (Testing/Temporary/LastTest.log);
# - the skips per test with their reasons and class (test/skip-policy.txt), whole (Skipped in
#   CTest) or partial (subtests, single gtests), from <build>/Testing/klms-skips/ (written by
#   test/support/ctest_driver.pl);
# - the total.
set -euo pipefail
cd "$(dirname "$0")/.."
exec perl - "$@" <<'PERL'
use strict;
use warnings;
use Getopt::Long;

my ($stages_file, $total) = ('build/ci-stages.tsv', undef);
GetOptions('stages=s' => \$stages_file, 'total=i' => \$total) or die "usage: scripts/ci-timing.sh [--stages FILE] [--total SECONDS] [BUILD_DIR...]\n";

sub hms { my ($s) = @_; return sprintf('%d:%02d:%02d', $s / 3600, ($s % 3600) / 60, $s % 60) }

my (@stages, @dirs, %label);
if (-f $stages_file) {
    open my $fh, '<', $stages_file or die "$stages_file: $!\n";
    while (<$fh>) {
        chomp;
        my ($name, $secs, $result, $dir) = split /\t/;
        push @stages, { name => $name, secs => $secs, result => $result, dir => $dir // '' };
        if (($dir // '') ne '' && !exists $label{$dir}) {
            push @dirs, $dir;
            ($label{$dir} = $dir) =~ s{^build/}{};
        }
    }
}
if (@ARGV) { @dirs = @ARGV; %label = map { my $l = $_; $l =~ s{^build/}{}; ($_ => $l) } @dirs }
elsif (!@dirs) {
    @dirs = grep { -f "$_/Testing/Temporary/LastTest.log" || -f "$_/Testing/Temporary/LastTest.log.tmp" } glob('build/*');
    %label = map { my $l = $_; $l =~ s{^build/}{}; ($_ => $l) } @dirs;
}

# Per test its time and status. CTest's JUnit file (ctest --output-junit Testing/klms-junit.xml,
# as scripts/test.sh and scripts/test-openssl.sh run it) says which tests were skipped; its
# LastTest.log does not: CMake 3.25 writes "Test Passed." for a SKIP_RETURN_CODE exit, so from the
# log alone a whole skip is known only from the driver's record of it (Testing/klms-skips, "all").
sub whole_skip {
    my ($dir, $test) = @_;
    open my $fh, '<', "$dir/Testing/klms-skips/$test.skips" or return 0;
    while (<$fh>) { return 1 if /^all\t/ }
    return 0;
}
my (%summary, @all_tests);
for my $dir (@dirs) {
    my %count = (Passed => 0, Failed => 0, Skipped => 0);
    my $junit = "$dir/Testing/klms-junit.xml";
    my $log = "$dir/Testing/Temporary/LastTest.log";
    # A ctest that was stopped leaves its log as LastTest.log.tmp, and no JUnit file.
    $log .= '.tmp' if -f "$log.tmp" && (!-f $log || -M "$log.tmp" < -M $log);
    if (-f $junit && (!-f $log || -M $junit <= -M $log)) {
        open my $fh, '<', $junit or next;
        local $/;
        my $xml = <$fh>;
        while ($xml =~ /<testcase\s+name="([^"]*)"[^>]*?\stime="([\d.eE+-]+)"[^>]*?\sstatus="(\w+)"/g) {
            my ($test, $time, $s) = ($1, $2, $3);
            my $status = $s eq 'run' ? 'Passed' : $s eq 'fail' ? 'Failed' : 'Skipped';
            $count{$status}++;
            push @all_tests, { build => $label{$dir}, name => $test, secs => $time, status => $status };
        }
        $summary{$dir} = \%count;
        next;
    }
    next unless -f $log;
    open my $fh, '<', $log or next;
    my ($test, $time);
    while (my $line = <$fh>) {
        if ($line =~ m{^\d+/\d+ Test: (\S+)}) { ($test, $time) = ($1, undef) }
        elsif (defined $test && $line =~ /^Test time =\s*([\d.]+) sec/) { $time = $1 }
        # A test with PASS_REGULAR_EXPRESSION or FAIL_REGULAR_EXPRESSION ends with "Test Pass Reason:"
        # or "Test Fail Reason:" instead of "Test Passed." or "Test Failed.".
        elsif (defined $test && defined $time && $line =~ /^Test (Passed|Failed|Skipped|Not|Pass Reason:|Fail Reason:)/) {
            my $status = $1 eq 'Passed' || $1 eq 'Pass Reason:' ? 'Passed'
                       : $1 eq 'Skipped' || $1 eq 'Not' ? 'Skipped' : 'Failed';
            $status = 'Skipped' if $status eq 'Passed' && whole_skip($dir, $test);
            $count{$status}++;
            push @all_tests, { build => $label{$dir}, name => $test, secs => $time, status => $status };
            undef $test;
        }
    }
    $summary{$dir} = \%count;
}

print "\n=== time table ===\n";
if (@stages) {
    printf "  %-78s %9s  %s\n", 'stage', 'wall', 'result';
    for my $s (@stages) {
        my $extra = '';
        if ($s->{dir} ne '' && $s->{name} =~ /tests/ && (my $c = $summary{$s->{dir}})) {
            next unless $c->{Passed} + $c->{Failed} + $c->{Skipped};
            my $n = $c->{Passed} + $c->{Failed} + $c->{Skipped};
            $extra = "  ($n tests: $c->{Passed} passed, $c->{Skipped} skipped, $c->{Failed} failed)";
        }
        printf "  %-78s %9s  %s%s\n", substr($s->{name}, 0, 78), hms($s->{secs}), $s->{result}, $extra;
    }
}
my $sum = 0;
$sum += $_->{secs} for @stages;
printf "  %-78s %9s\n", 'total', hms($total // $sum);

my @slow = (sort { $b->{secs} <=> $a->{secs} } @all_tests)[0 .. 9];
@slow = grep { defined } @slow;
if (@slow) {
    print "\n  the 10 slowest tests (CTest's times; ctest -j runs two at a time)\n";
    printf "  %9s  %-22s %-40s %s\n", 'seconds', 'build', 'test', 'status';
    printf "  %9.1f  %-22s %-40s %s\n", $_->{secs}, $_->{build}, $_->{name}, $_->{status} for @slow;
}

# Skips, from the driver's records: of the tests this build's last ctest ran (a record of a test
# left out of that run is an older run's).
my (%ran, %logged);
$ran{"$_->{build}\0$_->{name}"} = $logged{$_->{build}} = 1 for @all_tests;
my @skips;
for my $dir (@dirs) {
    for my $file (sort glob("$dir/Testing/klms-skips/*.skips")) {
        (my $test = $file) =~ s{.*/(.*)\.skips$}{$1};
        next if $logged{$label{$dir}} && !$ran{"$label{$dir}\0$test"};
        open my $fh, '<', $file or next;
        while (<$fh>) {
            chomp;
            my ($count, $class, $why) = split /\t/, $_, 3;
            push @skips, { build => $label{$dir}, test => $test, count => $count, class => $class, why => $why };
        }
    }
}
print "\n  skips per test (all: the whole test, Skipped in CTest; a number: subtests or single gtests)\n";
if (@skips) {
    printf "  %-22s %-32s %5s  %-6s %s\n", 'build', 'test', 'count', 'class', 'reason';
    printf "  %-22s %-32s %5s  %-6s %s\n", $_->{build}, $_->{test}, $_->{count}, $_->{class}, $_->{why} for @skips;
    my %by_class;
    $by_class{$_->{class}} += ($_->{count} eq 'all' ? 1 : $_->{count}) for @skips;
    print '  by class: ', join(', ', map { "$_ $by_class{$_}" } sort keys %by_class), "\n";
} else {
    print "  none\n";
}
PERL
