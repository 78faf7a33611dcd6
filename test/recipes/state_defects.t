# The smaller state-file defects, each through the real openssl binary, with the
# provider's own reason and exit status (docs/state.md "Errors"):
#   a FIFO at <state>.cache never blocks signing or `pkey -check`;
#   control characters in a state-file path are refused, at genpkey and in a key file;
#   a name whose cache names would not fit is refused at genpkey, before any hashing;
#   `pkey -text` runs the checks signing runs (a 0777 directory is not "state: ok");
#   "" and a trailing '/' are an invalid path, not "cancelled";
#   a read-only file system is named as such;
#   an orphan state file (an interrupted genpkey) is recognised and removed by `klms-state discard`.
use strict;
use warnings;
use Test::More;
use POSIX qw(mkfifo);
use KlmsTest qw(:DEFAULT cmd_ok cmd_fails hss_genpkey pem_wrap);

my $dir = private_dir();
$ENV{KLMS_STATE_DIR} = "$dir/default-state";
mkdir $ENV{KLMS_STATE_DIR}, 0700 or die;
my $msg = "$dir/msg.txt";
spew($msg, "defects\n");
my $keyno = 0;

sub genkey {
    my ($state, @extra) = @_;
    my $key = "$dir/k" . ++$keyno . '.pem';
    my $r = hss_genpkey($key, 'lms:LMS_SHA256_M32_H5', 'ots:LMOTS_SHA256_N32_W8', "state-file:$state", @extra);
    return { r => $r, key => $key, state => $state };
}
my $signo = 0;
sub sign {
    my ($key, @pkeyopt) = @_;
    return state_sign(key => $key, in => $msg, out => "$dir/s" . ++$signo . '.sig', pkeyopt => \@pkeyopt);
}
# A command under a time limit: a hang is a failure (status 124), never a stuck test.
sub limited { return run_cmd_st([ "timeout", "60", @_ ]) }

subtest 'a FIFO at the tree cache path does not block' => sub {
    my $k = genkey("$dir/fifo.state");
    cmd_ok($k->{r}, 'genpkey');
    unlink "$k->{state}.cache" or die;
    mkfifo("$k->{state}.cache", 0600) or die "mkfifo: $!";
    my $check = limited($ENV{OPENSSL_BIN}, 'pkey', '-in', $k->{key}, '-check', '-noout');
    isnt($check->{status}, 124, 'pkey -check does not hang');
    cmd_ok($check, 'pkey -check succeeds');
    my $s = run_cmd_st([ 'timeout', '60', $ENV{OPENSSL_BIN}, 'pkeyutl', '-sign', '-rawin', '-inkey', $k->{key},
                         '-in', $msg, '-out', "$dir/fifo.sig" ]);
    isnt($s->{status}, 124, 'signing does not hang');
    cmd_ok($s, 'signing succeeds (the tree is rebuilt)');
    ok(-f "$k->{state}.cache", 'and the FIFO was replaced by a real cache file');
};

subtest 'control characters in a state-file path' => sub {
    for my $case ([ "new\nline", 'newline' ], [ "esc\e[2J", 'escape' ], [ "tab\there", 'tab' ]) {
        my $k = genkey("$dir/$case->[0].state");
        cmd_fails($k->{r}, qr/invalid state file path/, "genpkey refuses a path with a $case->[1]");
        ok(!-e "$dir/$case->[0].state", '... and creates nothing');
    }
    # A key file whose recorded path gets a newline (same length: no DER length changes), so that
    # `pkey -text` would print a forged "state: ok" line: the key is refused.
    my $k = genkey("$dir/ctlpath.state");
    cmd_ok($k->{r}, 'genpkey');
    my $der = openssl_st('pkey', '-in', $k->{key}, '-outform', 'DER');
    cmd_ok($der, 'pkey -outform DER');
    my $bytes = $der->{out};
    my $forged = "$dir/ctlpath\nstate";
    is(length $forged, length "$dir/ctlpath.state", 'same length');
    ok($bytes =~ s/\Q$dir\/ctlpath.state\E/$forged/, 'the path is in the key');
    spew("$dir/ctl.der", $bytes);
    my $t = openssl_st('pkey', '-inform', 'DER', '-in', "$dir/ctl.der", '-text', '-noout');
    isnt($t->{status}, 0, 'pkey refuses the key');
    unlike($t->{out}, qr/^state: ok/m, 'no state line is printed');
    my $s = openssl_st('pkeyutl', '-sign', '-rawin', '-keyform', 'DER', '-inkey', "$dir/ctl.der", '-in', $msg,
                       '-out', "$dir/ctl.sig");
    isnt($s->{status}, 0, 'signing with it fails');
    ok(!-s "$dir/ctl.sig", 'no signature');
    # And the signing override.
    my $o = sign($k->{key}, "state-file:$dir/x\x01y.state");
    cmd_fails($o, qr/invalid state file path/, 'a state-file override with a control character');
};

subtest 'names too long for the cache are refused before hashing' => sub {
    my $name = 'n' x (255 - 34);  # the longest that leaves room for ".cache.level8.tmp.<16 hex>"
    my $ok = genkey("$dir/$name");
    cmd_ok($ok->{r}, 'genpkey with a 221-byte name');
    my $s = sign($ok->{key});
    cmd_ok($s, 'signs');
    ok(-f "$dir/$name.cache", 'with a cache file');
    # H20: refused before the 20 s of hashing, not after.
    my $long = hss_genpkey("$dir/long.pem", 'lms:LMS_SHA256_M32_H20', 'ots:LMOTS_SHA256_N32_W4',
                           "state-file:$dir/${name}x");
    cmd_fails($long, qr/state file name too long/, 'genpkey refuses a 222-byte name');
    ok(!-e "$dir/${name}x", 'and creates nothing');
};

subtest 'pkey -text runs the checks signing runs' => sub {
    my $sub = "$dir/open";
    mkdir $sub, 0700 or die;
    my $k = genkey("$sub/k.state");
    cmd_ok($k->{r}, 'genpkey');
    my $t = openssl_st('pkey', '-in', $k->{key}, '-text', '-noout');
    like($t->{out}, qr/^state: ok$/m, 'state: ok at first');
    chmod 0777, $sub or die;
    my $s = sign($k->{key});
    cmd_fails($s, qr/state file or directory not private/, 'signing refuses a 0777 directory');
    $t = openssl_st('pkey', '-in', $k->{key}, '-text', '-noout');
    is($t->{status}, 0, 'pkey -text still prints');
    unlike($t->{out}, qr/^state: ok$/m, 'but not state: ok');
    like($t->{out}, qr/^state: REFUSED FOR SIGNING: state directory is writable by group or others$/m,
         'it says what signing says');
    like($t->{out}, qr/^next index: 0$/m, 'and still what the file records');
    chmod 0700, $sub or die;
};

subtest 'an empty or directory-like state-file is an invalid path, not a cancellation' => sub {
    for my $path ('', "$dir/", "$dir/sub/") {
        my $k = genkey($path);
        cmd_fails($k->{r}, qr/invalid state file path/, "genpkey state-file:'$path'");
        unlike($k->{r}{err}, qr/cancel/, 'not reported as cancelled');
    }
};

SKIP: {
    my $mnt = "$dir/ro";
    mkdir $mnt, 0700 or die;
    skip 'needs root and tmpfs mounts', 4
        unless $> == 0 && system('mount', '-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', $mnt) == 0;
    subtest 'a read-only file system is named' => sub {
        my $k = genkey("$mnt/k.state");
        cmd_ok($k->{r}, 'genpkey on the tmpfs');
        cmd_ok(sign($k->{key}), 'signs while writable');
        is(system('mount', '-o', 'remount,ro', $mnt), 0, 'remounted read-only');
        my $s = sign($k->{key});
        cmd_fails($s, qr/state file on a read-only file system/, 'signing says read-only');
        unlike($s->{err}, qr/unreadable/, 'not "unreadable"');
        my $g = genkey("$mnt/k2.state");
        cmd_fails($g->{r}, qr/state file on a read-only file system/, 'genpkey says read-only too');
    };
    system('umount', $mnt);
}

subtest 'an orphan state file left by an interrupted genpkey' => sub {
    my $state = "$dir/orphan.state";
    my $k = genkey($state);
    cmd_ok($k->{r}, 'genpkey');
    unlink $k->{key} or die;  # what a kill after the state file but before the key file leaves
    my $again = genkey($state);
    cmd_fails($again->{r}, qr/state file already exists:.*never used.*klms-state discard/,
              'genpkey recognises the orphan and says how to clear it');
    my $used = genkey("$dir/used.state");
    cmd_ok(sign($used->{key}), 'another key signs once');
    my $refuse = run_cmd_st([ tool('klms-state'), 'discard', $used->{state} ]);
    isnt($refuse->{status}, 0, 'klms-state discard refuses a state file that signed');
    like($refuse->{err}, qr/handed out signature indices/, '... saying why');
    ok(-f $used->{state}, '... and keeps it');
    my $unasked = run_cmd_st([ tool('klms-state'), 'discard', $state ], stdin => '');
    isnt($unasked->{status}, 0, 'klms-state discard does not remove a valid never-used file without the typed answer');
    ok(-f $state, '... and keeps it');
    my $id = state_show($state)->{key_id};
    like($unasked->{err}, qr/\Q$id\E/, '... naming the key id');
    my $d = run_cmd_st([ tool('klms-state'), 'discard', $state ], stdin => 'discard ' . substr($id, 0, 8) . "\n");
    is($d->{status}, 0, 'klms-state discard removes the orphan after the typed confirmation') or diag $d->{err};
    ok(!-e $state && !-e "$state.cache", 'with its cache');
    cmd_ok(genkey($state)->{r}, 'genpkey to that path works again');
};

done_testing();
