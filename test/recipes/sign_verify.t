# Signing and verification through the real openssl binary (docs/design.md "Provider surface", docs/state.md):
# for SHA-256, SHA-256/192, SHAKE, LSH-256 and each Tandem-DM hash, L = 1 and L = 2:
# `pkeyutl -sign/-verify -rawin`, plain `pkeyutl -sign/-verify` (the input is the message: pure
# signing), `dgst -sign/-verify` (streaming); every signature verifies in every way, signatures
# differ, a flipped bit in signature, message or public key fails with exit 1 and the provider's
# text; state-file and reserve context parameters; digests refused where not allowed; remaining
# signatures; an H5 key signs exactly 32 times.
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);

my $dir = private_dir();
mkdir "$dir/state", 0700 or die;
$ENV{KLMS_STATE_DIR} = "$dir/state";
my $msg = "$dir/msg.txt";
spew($msg, "HSS/LMS signs the message itself.\nSecond line.\n");
my $msg2 = "$dir/msg2.txt";
spew($msg2, "HSS/LMS signs the message itself.\nSecond linE.\n");  # one bit away (e -> E)
my $big = "$dir/big.bin";
spew($big, join('', map { chr(($_ * 13) & 0xff) } 0 .. 65535) x 16);  # 1 MiB: dgst streams it

my $VERIFIED = qr/Signature Verified Successfully/;
my $VERIFY_FAILED = qr/HSS\/LMS signature verification failed:.*verifying: signature verification failed/;

sub field { my ($text, $name) = @_; return $text =~ /^\Q$name\E: (.*)$/m ? $1 : undef }
sub text_of { return openssl('pkey', '-in', $_[0], '-text', '-noout')->{out} }

my $n = 0;
# A key with its public key and shapes (for reading q out of signatures).
sub new_key {
    my (@pkeyopt) = @_;
    my $name = 'k' . ++$n;
    my $k = { key => "$dir/$name.pem", pub => "$dir/$name.pub", state => "$dir/$name.state", name => $name };
    my $r = hss_genpkey($k->{key}, @pkeyopt, "state-file:$k->{state}");
    return ($k, $r) if $r->{status} != 0;
    openssl('pkey', '-in', $k->{key}, '-pubout', '-out', $k->{pub});
    openssl('pkey', '-in', $k->{key}, '-pubout', '-outform', 'DER', '-out', "$k->{pub}.der");
    my $t = text_of($k->{key});
    my (@lms, @ots);
    while ($t =~ /^level \d+: (\S+) \/ (\S+)$/mg) { push @lms, $1; push @ots, $2 }
    $k->{shapes} = state_shapes(join(',', @lms), join(',', @ots));
    $k->{max} = field($t, 'maximum signatures');
    return ($k, $r);
}
sub q_of { my ($k, $file) = @_; return scalar state_sig_q(slurp($file), $k->{shapes}) }
# Offset of the last byte of the bottom level's LM-OTS y values: inside the one-time signature, so
# a flip there is a wrong signature, not a malformed one.
sub y_offset { my ($k) = @_; my $s = $k->{shapes}[-1]; return -($s->{h} * $s->{m} + 4 + 1) }  # from the end

sub pkeyutl_sign { my ($k, $out, @a) = @_; return openssl('pkeyutl', '-sign', '-inkey', $k->{key}, '-in', $msg, '-out', $out, @a) }
sub pkeyutl_verify {
    my ($k, $sig, %o) = @_;
    return openssl('pkeyutl', '-verify', ($o{raw} ? '-rawin' : ()), '-pubin', '-inkey', $o{pub} // $k->{pub},
                   ($o{der} ? ('-keyform', 'DER') : ()), '-in', $o{msg} // $msg, '-sigfile', $sig);
}
sub dgst_verify {
    my ($k, $sig, %o) = @_;
    return openssl('dgst', '-verify', $o{pub} // $k->{pub}, ($o{der} ? ('-keyform', 'DER') : ()), '-signature', $sig,
                   $o{msg} // $msg);
}

# ---- Every hash family, L = 1 and L = 2 ----
for my $hash (qw(SHA256 SHA256/192 SHAKE LSH256 TDMCHAM TDMLEA TDMARIA)) {
    for my $heights ('5', '5,5') {
        my $L = $heights =~ tr/,// + 1;
        my $what = "$hash L=$L";
        subtest $what => sub {
            my ($k, $r) = new_key("hash:$hash", "height:$heights");
            cmd_ok($r, "genpkey hash:$hash height:$heights") or return;
            my ($s1, $s2, $s3) = map { "$dir/$k->{name}.sig$_" } 1 .. 3;
            cmd_ok(pkeyutl_sign($k, $s1, '-rawin'), 'pkeyutl -sign -rawin');
            cmd_ok(pkeyutl_sign($k, $s2), 'pkeyutl -sign (plain: the input is the message)');
            cmd_ok(openssl('dgst', '-sign', $k->{key}, '-out', $s3, $msg), 'dgst -sign (streaming)');
            is_deeply([map { q_of($k, $_) } $s1, $s2, $s3], [0, 1, 2], 'well-formed signatures at indices 0, 1, 2');
            my %distinct = map { (slurp($_) => 1) } $s1, $s2, $s3;
            is(scalar keys %distinct, 3, 'the three signatures all differ');
            for my $sig ($s1, $s2, $s3) {
                (my $label = $sig) =~ s/.*\.//;
                cmd_ok(pkeyutl_verify($k, $sig, raw => 1), "$label: pkeyutl -verify -rawin", $VERIFIED);
                cmd_ok(pkeyutl_verify($k, $sig), "$label: pkeyutl -verify (plain)", $VERIFIED);
                cmd_ok(dgst_verify($k, $sig), "$label: dgst -verify", qr/^Verified OK$/m);
            }
            cmd_ok(pkeyutl_verify($k, $s1, raw => 1, pub => "$k->{pub}.der", der => 1), 'verify with the DER public key', $VERIFIED);
            cmd_ok(openssl('pkeyutl', '-verify', '-rawin', '-inkey', $k->{key}, '-in', $msg, '-sigfile', $s1),
                   'verify with the private key file', $VERIFIED);

            my $bad_sig = flip_byte($s1, "$s1.flip", y_offset($k));
            cmd_fails(pkeyutl_verify($k, $bad_sig, raw => 1), $VERIFY_FAILED, 'flipped signature bit: pkeyutl fails', status => 1);
            cmd_fails(dgst_verify($k, $bad_sig), $VERIFY_FAILED, 'flipped signature bit: dgst fails', status => 1);
            cmd_fails(pkeyutl_verify($k, $s2, msg => $msg2), $VERIFY_FAILED, 'flipped message bit: pkeyutl fails', status => 1);
            cmd_fails(dgst_verify($k, $s3, msg => $msg2), $VERIFY_FAILED, 'flipped message bit: dgst fails', status => 1);
            my $bad_pub = flip_byte("$k->{pub}.der", "$dir/$k->{name}.badpub.der", -1);
            cmd_fails(pkeyutl_verify($k, $s1, raw => 1, pub => $bad_pub, der => 1), $VERIFY_FAILED,
                      'flipped public key bit: pkeyutl fails', status => 1);
            cmd_fails(dgst_verify($k, $s3, pub => $bad_pub, der => 1), $VERIFY_FAILED, 'flipped public key bit: dgst fails', status => 1);

            my $t = text_of($k->{key});
            is(field($t, 'next index'), 3, 'next index 3');
            is(field($t, 'remaining signatures'), $k->{max} - 3, 'remaining signatures = maximum - 3');
        };
    }
}

# ---- Streaming a 1 MiB message through dgst ----
my ($key) = new_key('height:5');
{
    my $sig = "$dir/big.sig";
    cmd_ok(openssl('dgst', '-sign', $key->{key}, '-out', $sig, $big), 'dgst -sign of 1 MiB');
    cmd_ok(dgst_verify($key, $sig, msg => $big), 'dgst -verify of 1 MiB', qr/Verified OK/);
    cmd_ok(pkeyutl_verify($key, $sig, raw => 1, msg => $big), 'pkeyutl -verify -rawin of the same', $VERIFIED);
    flip_byte($big, "$big.flip", 1 << 19);
    cmd_fails(dgst_verify($key, $sig, msg => "$big.flip"), $VERIFY_FAILED, 'one bit in the middle of 1 MiB changed: fails', status => 1);
}

# ---- state-file override (pkeyutl -pkeyopt, dgst -sigopt); it never creates a file ----
{
    my ($k) = new_key('height:5');
    my $moved = "$dir/moved";
    mkdir $moved, 0700 or die;
    rename $k->{state}, "$moved/k.state" or die;
    rename "$k->{state}.cache", "$moved/k.state.cache";
    cmd_fails(pkeyutl_sign($k, "$dir/ov0.sig", '-rawin'), qr/state file missing:.*opening state file \Q$k->{state}\E: state file missing/,
              'the key\'s own state file has moved: signing fails');
    cmd_ok(pkeyutl_sign($k, "$dir/ov1.sig", '-rawin', '-pkeyopt', "state-file:$moved/k.state"), 'pkeyutl -pkeyopt state-file:<moved>');
    cmd_ok(openssl('dgst', '-sign', $k->{key}, '-sigopt', "state-file:$moved/k.state", '-out', "$dir/ov2.sig", $msg),
           'dgst -sigopt state-file:<moved>');
    is_deeply([q_of($k, "$dir/ov1.sig"), q_of($k, "$dir/ov2.sig")], [0, 1], 'indices 0 and 1 from the moved state file');
    cmd_ok(pkeyutl_verify($k, "$dir/ov2.sig", raw => 1), 'the override signature verifies', $VERIFIED);
    my $none = "$dir/nowhere.state";
    cmd_fails(pkeyutl_sign($k, "$dir/ov3.sig", '-rawin', '-pkeyopt', "state-file:$none"),
              qr/state file missing:.*opening state file \Q$none\E: state file missing/, 'a missing override path: state file missing');
    cmd_fails(openssl('dgst', '-sign', $k->{key}, '-sigopt', "state-file:$none", '-out', "$dir/ov4.sig", $msg),
              qr/state file missing/, 'dgst -sigopt with a missing path: state file missing');
    ok(!-e $none && !-e "$none.cache", 'the override created no file');
    ok(!-s "$dir/ov3.sig", 'no signature written');
    cmd_fails(pkeyutl_sign($k, "$dir/ov5.sig", '-rawin', '-pkeyopt', 'state-file:'), qr/state-file: expected a path/,
              'an empty override is refused');
    # The override must belong to the key: another key's state file is refused.
    my ($other) = new_key('height:5');
    cmd_fails(pkeyutl_sign($k, "$dir/ov6.sig", '-rawin', '-pkeyopt', "state-file:$other->{state}"),
              qr/state file belongs to another key/, 'another key\'s state file as override: refused');
}

# ---- reserve ----
{
    my ($k) = new_key('height:5');
    cmd_ok(pkeyutl_sign($k, "$dir/r0.sig", '-rawin'), 'one signature');
    cmd_ok(pkeyutl_sign($k, "$dir/r1.sig", '-rawin', '-pkeyopt', 'reserve:5'), 'pkeyutl -pkeyopt reserve:5');
    is(q_of($k, "$dir/r1.sig"), 1, 'the reserved batch starts at index 1');
    my $t = text_of($k->{key});
    is(field($t, 'next index'), 6, 'five indices reserved: next index 6 (the unused four are lost, never reused)');
    is(field($t, 'remaining signatures'), 26, 'remaining 26');
    cmd_ok(pkeyutl_sign($k, "$dir/r2.sig", '-rawin'), 'the next signature');
    is(q_of($k, "$dir/r2.sig"), 6, '... uses index 6');
    cmd_ok(openssl('dgst', '-sign', $k->{key}, '-sigopt', 'reserve:3', '-out', "$dir/r3.sig", $msg), 'dgst -sigopt reserve:3');
    is(field(text_of($k->{key}), 'next index'), 10, 'next index 10');
    cmd_fails(pkeyutl_sign($k, "$dir/r4.sig", '-rawin', '-pkeyopt', 'reserve:0'), qr/reserve: expected a number of indices of at least 1/,
              'reserve:0 refused');
    cmd_fails(pkeyutl_sign($k, "$dir/r5.sig", '-rawin', '-pkeyopt', 'reserve:many'), qr/Can't set parameter "reserve:many"/, 'reserve:many refused');
    is(field(text_of($k->{key}), 'next index'), 10, 'refused requests consumed nothing');
}

# ---- Digests: refused where not allowed, tolerated where CMS passes them ----
# `pkeyutl -digest`: OpenSSL 3.0 passes the digest to the provider, which refuses it or (SHA-256 for
# SHA-256 and K-LMS keys, SHAKE-256 for SHAKE keys, as CMS passes them) tolerates and ignores it;
# OpenSSL 3.5+ pkeyutl refuses -digest itself for a key whose mandatory digest is none ("-digest
# (prehash) is not supported with ...", before the provider is asked). `dgst -<md> -sign` reaches
# the provider on every version, so the provider's own rule is checked through it everywhere.
{
    my ($k) = new_key('height:5');
    my $NOT_ALLOWED = qr/HSS\/LMS signs the message itself: digest not allowed/;
    my $PKEYUTL_REFUSES = qr/pkeyutl: -digest \(prehash\) is not supported with \S+/;
    # pkeyutl -digest: $on30 checks OpenSSL 3.0's (the provider's) answer, 3.5+ checks pkeyutl's refusal.
    my $pkeyutl_digest = sub {
        my ($r, $name, $on30) = @_;
        if (openssl_at_least(3, 5)) {
            cmd_fails($r, $PKEYUTL_REFUSES, "$name: OpenSSL 3.5+ pkeyutl refuses -digest itself", status => 1);
        } else {
            $on30->($r, $name);
        }
    };
    $pkeyutl_digest->(pkeyutl_sign($k, "$dir/d1.sig", '-rawin', '-digest', 'sha512'), 'pkeyutl -sign -rawin -digest sha512',
                      sub { cmd_fails($_[0], qr/$NOT_ALLOWED.*digest 'sha512' is not allowed/, "$_[1] refused") });
    cmd_fails(openssl('dgst', '-sha512', '-sign', $k->{key}, '-out', "$dir/d2.sig", $msg), $NOT_ALLOWED, 'dgst -sha512 -sign refused');
    cmd_fails(openssl('dgst', '-LSH-256', '-sign', $k->{key}, '-out', "$dir/d3.sig", $msg), $NOT_ALLOWED, 'dgst -LSH-256 -sign refused');
    cmd_fails(pkeyutl_sign($k, "$dir/d4.sig", '-pkeyopt', 'digest:sha256'), qr/a signature digest \('sha256'\) cannot be set/,
              'plain pkeyutl -sign with a signature digest refused');
    cmd_ok(pkeyutl_sign($k, "$dir/d0.sig", '-rawin'), 'a plain signature to verify with digests');
    cmd_fails(openssl('dgst', '-sha512', '-verify', $k->{pub}, '-signature', "$dir/d0.sig", $msg), $NOT_ALLOWED,
              'dgst -sha512 -verify refused');
    $pkeyutl_digest->(openssl('pkeyutl', '-verify', '-rawin', '-digest', 'sha384', '-pubin', '-inkey', $k->{pub}, '-in', $msg,
                              '-sigfile', "$dir/d0.sig"), 'pkeyutl -verify -rawin -digest sha384',
                      sub { cmd_fails($_[0], $NOT_ALLOWED, "$_[1] refused") });
    is(field(text_of($k->{key}), 'next index'), 1, 'refused digests consumed no index');
    # SHA-256 is what CMS passes for SHA-256 and K-LMS keys: accepted and ignored (still pure).
    cmd_ok(openssl('dgst', '-sha256', '-sign', $k->{key}, '-out', "$dir/d5.sig", $msg), 'dgst -sha256 -sign tolerated (SHA-256 key)');
    cmd_ok(pkeyutl_verify($k, "$dir/d5.sig", raw => 1), '... and it is a pure signature of the message', $VERIFIED);
    $pkeyutl_digest->(pkeyutl_sign($k, "$dir/d5p.sig", '-rawin', '-digest', 'sha256'), 'pkeyutl -rawin -digest sha256 (SHA-256 key)',
                      sub { cmd_ok($_[0], "$_[1] tolerated");
                            cmd_ok(pkeyutl_verify($k, "$dir/d5p.sig", raw => 1), '... and it is a pure signature of the message', $VERIFIED) });
    my ($lsh) = new_key('hash:LSH256', 'height:5');
    cmd_ok(openssl('dgst', '-sha256', '-sign', $lsh->{key}, '-out', "$dir/d6.sig", $msg), 'dgst -sha256 -sign tolerated for a K-LMS (LSH256) key');
    cmd_ok(pkeyutl_verify($lsh, "$dir/d6.sig", raw => 1), '... pure', $VERIFIED);
    cmd_fails(openssl('dgst', '-LSH-256', '-sign', $lsh->{key}, '-out', "$dir/d7.sig", $msg), qr/$NOT_ALLOWED.*only SHA2-256/,
              'dgst -LSH-256 refused for an LSH256 key (only SHA2-256)');
    $pkeyutl_digest->(pkeyutl_sign($lsh, "$dir/d7p.sig", '-rawin', '-digest', 'LSH-256'), 'pkeyutl -rawin -digest LSH-256 (LSH256 key)',
                      sub { cmd_fails($_[0], qr/$NOT_ALLOWED.*only SHA2-256/, "$_[1] refused (only SHA2-256)") });
    my ($shake) = new_key('hash:SHAKE', 'height:5');
    $pkeyutl_digest->(pkeyutl_sign($shake, "$dir/d8.sig", '-rawin', '-digest', 'shake256'), 'pkeyutl -rawin -digest shake256 (SHAKE key)',
                      sub { cmd_ok($_[0], "$_[1] tolerated");
                            cmd_ok(pkeyutl_verify($shake, "$dir/d8.sig", raw => 1), '... pure', $VERIFIED) });
    cmd_fails(openssl('dgst', '-sha256', '-sign', $shake->{key}, '-out', "$dir/d9.sig", $msg), qr/$NOT_ALLOWED.*only SHAKE-256/,
              'dgst -sha256 -sign refused for a SHAKE key');
    $pkeyutl_digest->(pkeyutl_sign($shake, "$dir/d9p.sig", '-rawin', '-digest', 'sha256'), 'pkeyutl -rawin -digest sha256 (SHAKE key)',
                      sub { cmd_fails($_[0], qr/$NOT_ALLOWED.*only SHAKE-256/, "$_[1] refused") });
}

# ---- Signing with a public key only, or a key that does not match ----
{
    cmd_fails(openssl('pkeyutl', '-sign', '-rawin', '-pubin', '-inkey', $key->{pub}, '-in', $msg, '-out', "$dir/p.sig"),
              qr/A private key is needed for this operation/, 'signing with a public key fails cleanly');
    my ($other) = new_key('height:5');
    cmd_ok(pkeyutl_sign($other, "$dir/o.sig", '-rawin'), 'another key signs');
    cmd_fails(pkeyutl_verify($key, "$dir/o.sig", raw => 1), $VERIFY_FAILED, 'its signature does not verify under our key', status => 1);
    cmd_fails(pkeyutl_verify($key, $msg, raw => 1), qr/malformed HSS\/LMS signature/, 'a text file as signature: malformed', status => 1);
    spew("$dir/empty.sig", '');
    cmd_fails(pkeyutl_verify($key, "$dir/empty.sig", raw => 1), qr/malformed HSS\/LMS signature/, 'an empty signature: malformed', status => 1);
}

# ---- Exhaustion: an H5 key signs exactly 32 times; the 33rd fails ----
{
    my ($k) = new_key('height:5');
    # Its last 3 wait for the acknowledgement (docs/state.md §5; state_misuse.t tests the gate).
    cmd_ok(run_cmd([tool('klms-state'), 'acknowledge', '--key-id', field(text_of($k->{key}), 'key id'), $k->{state}]),
           'klms-state acknowledge --key-id');
    my (%q, $fails);
    for my $i (0 .. 31) {
        my $r = pkeyutl_sign($k, "$dir/ex.sig", '-rawin');
        $fails++ if $r->{status} != 0;
        $q{ q_of($k, "$dir/ex.sig") // 'bad' }++ if $r->{status} == 0;
        unlink "$dir/ex.sig";
    }
    ok(!$fails, '32 signatures succeed');
    is_deeply([sort { $a <=> $b } keys %q], [0 .. 31], 'indices 0 to 31, each once');
    my $t = text_of($k->{key});
    is(field($t, 'remaining signatures'), 0, 'remaining 0');
    is(field($t, 'next index'), 32, 'next index 32');
    my $r = pkeyutl_sign($k, "$dir/ex33.sig", '-rawin');
    cmd_fails($r, qr/HSS\/LMS key exhausted:.*key exhausted: no signatures left/, 'the 33rd signature fails: key exhausted');
    ok(!-s "$dir/ex33.sig", 'no 33rd signature written');
    cmd_fails(openssl('dgst', '-sign', $k->{key}, '-out', "$dir/ex34.sig", $msg), qr/key exhausted/, 'dgst -sign also refuses');
    cmd_ok(openssl('pkey', '-in', $k->{key}, '-text', '-noout'), 'pkey -text of an exhausted key still works', qr/^remaining signatures: 0$/m);
}

done_testing();
