# Progress lines on stderr (docs/developer-kit.md "Progress"): key generation with -pkeyopt
# progress:1 or KLMS_PROGRESS=1 says what it builds for which state file, counts per cent up to 100
# and estimates the time left; a signature that rebuilds a missing or damaged top-tree cache says so
# with KLMS_PROGRESS=1, counting work done only and reading no clock (docs/state.md §14). Without
# being asked, the provider writes nothing on stderr.
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);

my $dir = private_dir();
my $msg = "$dir/msg.bin";
spew($msg, "firmware\n" x 100);
my %quiet = (KLMS_PROGRESS => undef);  # whatever the caller's environment says

my $n = 0;
sub genkey {
    my (%o) = @_;
    my $state = "$dir/k" . ++$n . '.state';
    my $r = openssl('genpkey', '-algorithm', 'HSS-LMS', '-pkeyopt', 'lms:' . ($o{lms} // 'LMS_SHA256_M32_H10'),
                    (map { ('-pkeyopt', $_) } @{ $o{opts} // [] }), '-pkeyopt', "state-file:$state",
                    '-out', "$dir/k$n.pem", { env => { %quiet, %{ $o{env} // {} } } });
    return { %$r, state => $state, key => "$dir/k$n.pem" };
}

# The per-cent numbers of a list of lines matching `re` (its first group).
sub percents { my ($re, @lines) = @_; return map { /$re/ ? $1 : () } @lines }
sub increasing { my @p = @_; for my $i (1 .. $#p) { return 0 if $p[$i] <= $p[$i - 1] } return 1 }

# ---- Key generation -------------------------------------------------------------------------------

my $g = genkey(opts => ['progress:1']);
cmd_ok($g, 'genpkey -pkeyopt progress:1 of an H10 key');
my @lines = grep { /^klms: / } split /\n/, $g->{err};
is($lines[0], "klms: building the top tree of an H10 key (1,024 leaves, LMS_SHA256_M32_H10 with LMOTS_SHA256_N32_W4) "
              . "for state file $g->{state}", 'the first line: what is built, for which state file');
my @p = percents(qr/^klms: top tree (\d+)% /, @lines);
ok(@p >= 3, scalar(@p) . ' per-cent lines (' . join(' ', @p) . ')');
ok(increasing(@p), 'the per cent increases');
is($p[-1], 100, 'up to 100');
ok(@p <= 11, 'at most one line per tenth');
my @before_end = grep { /^klms: top tree (\d+)% / && $1 < 100 } @lines;
is(scalar(grep { /, (?:about \d+ (?:s|min \d+ s|h \d+ min)|less than a second) left$/ } @before_end), scalar(@before_end),
   'every line before the end estimates the time left');
like($lines[-1], qr/^klms: top tree 100% \(1,024 leaves\) in \d+\.\d s$/, 'the last line: done, and how long it took');
is(scalar(@lines), 1 + scalar(@p), 'no other klms: lines');
# OpenSSL 3.0's genpkey prints its dots from the callback; 4.0.2's prints none unasked (seen in
# the 4.0.2 stage), and a line that starts afresh after a callback then leaves an empty line.
my $between = openssl_at_least(4, 0) ? qr/(?:\.*\n)/ : qr/(?:\.+\n)/;
like($g->{err}, qr/\A(?:klms: [^\n]*\n|$between)*\z/, 'stderr: our lines, and genpkey\'s dots (if any) on lines of their own');

$g = genkey();
cmd_ok($g, 'genpkey without the option');
is($g->{err}, '', '... writes nothing on stderr (a quick key: not even dots)');

$g = genkey(env => { KLMS_PROGRESS => '1' });
cmd_ok($g, 'genpkey with KLMS_PROGRESS=1');
like($g->{err}, qr/\Aklms: building the top tree of an H10 key .* for state file \Q$g->{state}\E\n/,
     '... writes the lines too');
$g = genkey(opts => ['progress:0'], env => { KLMS_PROGRESS => '1' });
cmd_ok($g, 'genpkey -pkeyopt progress:0 with KLMS_PROGRESS=1');
is($g->{err}, '', '... writes nothing: the option wins');
$g = genkey(env => { KLMS_PROGRESS => 'yes' });
is($g->{err}, '', 'KLMS_PROGRESS=yes is not 1: nothing');
cmd_fails(genkey(opts => ['progress:2']), qr/progress: expected 0 or 1/, 'progress:2 is refused with its reason');

# Two levels: the shape names both; only the top tree is built at key generation.
$g = genkey(lms => 'LMS_SHA256_M32_H5,LMS_SHA256_M32_H5', opts => ['progress:1']);
cmd_ok($g, 'genpkey -pkeyopt progress:1 of a two-level key');
like($g->{err}, qr/^klms: building the top tree of an H5\/H5 key \(32 leaves, /m, '... the first line names both heights');

# ---- Signing: a top tree rebuilt from a missing or damaged cache ---------------------------------

my $k = genkey();
die $k->{err} if $k->{status};
my $cache = "$k->{state}.cache";
ok(-f $cache, 'key generation wrote the tree cache');
my $s = state_sign(key => $k->{key}, in => $msg, out => "$dir/s0.bin", env => { %quiet, KLMS_PROGRESS => '1' });
cmd_ok($s, 'KLMS_PROGRESS=1 signing with the cache in place');
is($s->{err}, '', '... writes nothing: nothing long to do');

unlink $cache or die;
$s = state_sign(key => $k->{key}, in => $msg, out => "$dir/s1.bin", env => { %quiet, KLMS_PROGRESS => '1' });
cmd_ok($s, 'KLMS_PROGRESS=1 signing after the cache was deleted');
@lines = split /\n/, $s->{err};
is($lines[0], "klms: tree cache $cache missing: rebuilding the top tree (1,024 leaves, LMS_SHA256_M32_H10 with "
              . "LMOTS_SHA256_N32_W4) of state file $k->{state}", 'the first line: which cache is missing, what is rebuilt');
@p = percents(qr/^klms: rebuilding the top tree: (\d+)% /, @lines);
ok(@p >= 3 && increasing(@p) && $p[-1] == 100, 'per cent increasing to 100 (' . join(' ', @p) . ')');
is(scalar(@lines), 1 + scalar(@p), 'nothing else on stderr');
is(scalar(grep { / s\b|left|second/ } @lines), 0, 'no time in any line: signing counts work done only');
like($lines[-1], qr/^klms: rebuilding the top tree: 100% \(1,024 leaves\); writing the tree cache \Q$cache\E$/,
     'the last line names the cache written');
ok(-f $cache, 'the cache is back');
ok(state_verifies($k->{key}, $msg, "$dir/s1.bin"), 'the signature verifies');

unlink $cache or die;
$s = state_sign(key => $k->{key}, in => $msg, out => "$dir/s2.bin", env => \%quiet);
cmd_ok($s, 'signing after the cache was deleted, without KLMS_PROGRESS');
is($s->{err}, '', '... writes nothing (a library does not write on stderr unasked)');

# A damaged cache: cut short.
spew($cache, substr(slurp($cache), 0, 200));
$s = state_sign(key => $k->{key}, in => $msg, out => "$dir/s3.bin", env => { %quiet, KLMS_PROGRESS => '1' });
cmd_ok($s, 'KLMS_PROGRESS=1 signing with a damaged cache');
like($s->{err}, qr/\Aklms: tree cache \Q$cache\E unusable \(damaged, or made for another key or tree\): rebuilding the top tree/,
     '... says the cache is unusable, not missing');
ok(state_verifies($k->{key}, $msg, "$dir/s3.bin"), 'the signature verifies');

# ---- No clock while signing, even with the lines on (docs/state.md §14) ---------------------------

SKIP: {
    my $probe = $ENV{KLMS_CLOCK_PROBE};
    skip 'klms_clock_probe not built', 3 unless $probe;
    skip 'the sanitizer runtime hides C clock callers from the probe', 3 if $ENV{KLMS_SANITIZER_PRELOAD};
    my $log = "$dir/clock.log";
    my %env = (%quiet, LD_PRELOAD => $probe, KLMS_CLOCK_PROBE_LOG => $log, KLMS_CLOCK_PROBE_MATCH => 'klms.so');
    # Control: key generation's estimate reads the clock, and the probe sees it.
    my $c = genkey(opts => ['progress:1'], env => \%env);
    like(-e $log ? slurp($log) : '', qr/klms_clock_probe: \S+ called from \S*klms\.so/,
         'control: the probe sees key generation\'s clock read for the estimate');
    unlink $log;
    unlink "$c->{state}.cache" or die;
    $s = state_sign(key => $c->{key}, in => $msg, out => "$dir/s4.bin", env => { %env, KLMS_PROGRESS => '1' });
    like($s->{err}, qr/^klms: rebuilding the top tree: 100% /m, 'KLMS_PROGRESS=1 signing rebuilt the tree under the probe');
    is(-e $log ? slurp($log) : '', '', '... and klms.so read no clock');
}

done_testing();
