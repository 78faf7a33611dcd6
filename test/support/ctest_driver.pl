#!/usr/bin/perl
# CTest runs every recipe and every GoogleTest binary through this driver, so that a skip is a
# skip (docs/development.md "Skips"):
#   - a test that skips as a whole (a recipe's `plan skip_all`, a binary whose every test
#     skipped) exits 77, which CTest shows as Skipped (SKIP_RETURN_CODE 77), not Passed;
#   - a partial skip (a recipe's `skip`, a GTEST_SKIP) is counted per test with its reason into
#     <record>/<name>.skips, which scripts/ci-timing.sh puts in the time table;
#   - every reason is looked up in test/skip-policy.txt: a CPU feature or a deliberate, stage-bound
#     skip is allowed; a skip of a component CI installs (class `ci`), or one the file does not
#     list, fails the test when CI is set; a `ci-if:VAR` skip fails when $VAR is set.
#
#   ctest_driver.pl --name NAME --record DIR --policy FILE tap <recipe> [-I <dir>]...
#   ctest_driver.pl --name NAME --record DIR --policy FILE gtest -- BINARY [ARGS...]
#
# A recipe runs under TAP::Parser (what prove uses), its TAP echoed as `prove -v` shows it, with
# prove's closing lines (Files=1, Tests=N ... and Result: PASS or FAIL).
use strict;
use warnings;
use File::Path qw(make_path);
use File::Temp qw(tempdir);
use Getopt::Long qw(GetOptionsFromArray :config require_order);
use TAP::Parser;
use Time::HiRes ();

$| = 1;
my ($name, $record, $policy_file) = ('', '', '');
GetOptionsFromArray(\@ARGV, 'name=s' => \$name, 'record=s' => \$record, 'policy=s' => \$policy_file)
    or die "usage: ctest_driver.pl --name NAME --record DIR --policy FILE (tap <recipe> [-I <dir>]... | gtest -- BINARY ARGS...)\n";
my $kind = shift @ARGV // die "ctest_driver.pl: tap or gtest?\n";
shift @ARGV if @ARGV && $ARGV[0] eq '--';
my $SKIP = 77;

sub truthy { my ($v) = @_; return defined $v && $v ne '' && $v !~ /^(?:0|false|no|off)$/i }

# test/skip-policy.txt: "<class> <Perl regex>" per line, first match wins.
my @policy;
if ($policy_file) {
    open my $fh, '<', $policy_file or die "ctest_driver.pl: $policy_file: $!\n";
    while (my $line = <$fh>) {
        next if $line =~ /^\s*(?:#|$)/;
        my ($class, $re) = $line =~ /^\s*(\S+)\s+(.*?)\s*$/ or die "$policy_file:$.: not '<class> <regex>'\n";
        die "$policy_file:$.: unknown class $class\n" unless $class =~ /^(?:cpu|allow|ci|ci-if:\w+)$/;
        push @policy, [$class, qr/$re/];
    }
}
sub classify {
    my ($reason) = @_;
    for my $p (@policy) { return $p->[0] if $reason =~ $p->[1] }
    return 'unlisted';
}
# Why a skip of this class fails the test here, or undef when it may skip.
sub verdict {
    my ($class) = @_;
    return "a component CI installs (test/skip-policy.txt class ci) and CI is set" if $class eq 'ci' && truthy($ENV{CI});
    return "not in test/skip-policy.txt and CI is set: add its reason there (cpu, allow or ci)"
        if $class eq 'unlisted' && truthy($ENV{CI});
    if ($class =~ /^ci-if:(\w+)$/ && truthy($ENV{$1})) { return "$1 is set (test/skip-policy.txt class $class)" }
    return undef;
}

my (%partial, $whole, @failures, $tests);
my $t0 = Time::HiRes::time();
my $failed = 0;
if ($kind eq 'tap') {
    my $recipe = shift @ARGV // die "ctest_driver.pl tap: no recipe\n";
    my @switches;
    while (@ARGV) {
        my $opt = shift @ARGV;
        if ($opt eq '-I') { push @switches, '-I' . shift @ARGV } else { die "ctest_driver.pl tap: unknown $opt\n" }
    }
    print "$recipe ..\n";
    my $parser = TAP::Parser->new({ source => $recipe, switches => \@switches });
    while (my $r = $parser->next) {
        print $r->raw, "\n";
        if ($r->is_test && $r->has_skip) {
            my $why = $r->explanation // '';
            $why = '(no reason given)' if $why eq '';
            $partial{$why}++;
        }
    }
    $tests = $parser->tests_run;
    if (defined $parser->skip_all) {
        my $why = $parser->skip_all;
        $whole = ($why eq '' || $why eq '1') ? '(no reason given)' : $why;
    }
    $failed = 1 if $parser->has_problems;
    printf "%s\nFiles=1, Tests=%d, %.0f wallclock secs\n", ($failed ? 'FAILED' : 'ok'), $tests, Time::HiRes::time() - $t0;
} elsif ($kind eq 'gtest') {
    my @cmd = @ARGV or die "ctest_driver.pl gtest: no binary\n";
    my $tmp = tempdir('klms-gtest-XXXXXX', TMPDIR => 1, CLEANUP => 1);
    my $xml = "$tmp/report.xml";
    my $status = system(@cmd, "--gtest_output=xml:$xml");
    $failed = 1 if $status != 0;
    if (-s $xml) {
        # GoogleTest's XML report (its JSON one leaves out the GTEST_SKIP messages): one <testcase>
        # per test, status="run" when it ran, result="skipped" with <skipped message="file:line\nwhy">.
        open my $fh, '<', $xml or die "$xml: $!\n";
        my $text = do { local $/; <$fh> };
        my ($ran, $skipped) = (0, 0);
        my @cases = split /<testcase\s/, $text;
        shift @cases;  # what comes before the first test
        for my $case (@cases) {
            my ($attrs, $body) = $case =~ /\A([^>]*)>(.*)\z/s or next;
            next unless $attrs =~ /\bstatus="run"/;
            $ran++;
            next unless $attrs =~ /\bresult="skipped"/;
            $skipped++;
            my ($msg) = $body =~ /<skipped message="([^"]*)"/;
            $msg = xml_unescape($msg // '');
            $msg =~ s/^[^\n]*:\d+\n//;   # "file:line\n" before the message
            $msg =~ s/^Skipped\s*//;
            $msg =~ s/\s+/ /g;
            $msg =~ s/^\s+|\s+$//g;
            $partial{$msg eq '' ? '(no reason given)' : $msg}++;
        }
        $tests = $ran;
        if (!$failed && $ran == 0) {
            print "ctest_driver.pl: $cmd[0] ran no test: a filter that matches none is a wiring error\n";
            $failed = 1;
        } elsif (!$failed && $skipped == $ran) { $whole = (sort keys %partial)[0] // 'every test skipped'; %partial = () }
    } elsif (!$failed) {
        print "ctest_driver.pl: $cmd[0] wrote no report ($xml)\n";
        $failed = 1;
    }
} else {
    die "ctest_driver.pl: kind must be tap or gtest, not $kind\n";
}

sub xml_unescape {
    my ($s) = @_;
    $s =~ s/&#x([0-9A-Fa-f]+);/chr(hex $1)/ge;
    $s =~ s/&#(\d+);/chr($1)/ge;
    my %e = (lt => '<', gt => '>', quot => '"', apos => "'", amp => '&');
    $s =~ s/&(lt|gt|quot|apos|amp);/$e{$1}/g;
    return $s;
}

# The record for the time table, and the skip policy.
my @lines;
if (defined $whole) {
    my $class = classify($whole);
    push @lines, "all\t$class\t$whole";
    if (my $why = verdict($class)) { push @failures, "skipped as a whole ($whole): $why" }
}
for my $why (sort keys %partial) {
    my $class = classify($why);
    push @lines, "$partial{$why}\t$class\t$why";
    if (my $v = verdict($class)) { push @failures, "$partial{$why} skipped ($why): $v" }
}
if ($record ne '' && $name ne '') {
    make_path($record);
    my $file = "$record/$name.skips";
    unlink $file;
    if (@lines) {
        open my $out, '>', $file or die "$file: $!\n";
        print $out "$_\n" for @lines;
        close $out or die "$file: $!\n";
    }
}
for (@lines) {
    my ($count, $class, $why) = split /\t/, $_, 3;
    print "klms-skip: $name: ", ($count eq 'all' ? 'skipped as a whole' : "$count skipped"), " [$class] $why\n";
}
print "klms-skip: $name FAILS: $_\n" for @failures;
$failed = 1 if @failures;
print 'Result: ', ($failed ? 'FAIL' : 'PASS'), "\n" if $kind eq 'tap';  # prove's last line
exit 1 if $failed;
exit $SKIP if defined $whole;
exit 0;
