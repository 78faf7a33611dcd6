# Shared helpers for the command-line recipes: run the real openssl with the built provider, capture
# exit status, stdout and stderr, and make private (0700) working directories.
package KlmsTest;

use strict;
use warnings;
use Exporter 'import';
use File::Temp qw(tempdir);
use IPC::Open3;
use Symbol 'gensym';

our @EXPORT = qw(openssl openssl_conf run_cmd private_dir slurp spew provider_args tool);

my $openssl = $ENV{OPENSSL_BIN} // 'openssl';

# Environment for commands under test: the provider's configuration and modules directory, plus the
# sanitizer runtime when the provider was built with it. No KLMS_PROGRESS from the caller's shell:
# recipes compare stderr (progress.t sets it where it tests it).
sub command_env {
    my %env = (OPENSSL_CONF => $ENV{KLMS_OPENSSL_CONF}, KLMS_PROGRESS => undef);
    $env{LD_PRELOAD} = $ENV{KLMS_SANITIZER_PRELOAD} if $ENV{KLMS_SANITIZER_PRELOAD};
    return %env;
}

# run_cmd(\@argv, %opts) -> { status, out, err }. opts: stdin => string, env => {k => v}.
sub run_cmd {
    my ($argv, %opts) = @_;
    local %ENV = (%ENV, command_env(), %{ $opts{env} // {} });
    delete $ENV{$_} for grep { !defined $ENV{$_} } keys %ENV;
    my $err = gensym;
    my $pid = open3(my $in, my $out, $err, @$argv);
    print $in $opts{stdin} if defined $opts{stdin};
    close $in;
    my ($stdout, $stderr) = ('', '');
    # Read both streams without deadlocking on large outputs.
    my $sel = IO::Select->new($out, $err);
    while (my @ready = $sel->can_read) {
        for my $fh (@ready) {
            my $n = sysread($fh, my $buf, 65536);
            if (!$n) { $sel->remove($fh); next; }
            if ($fh == $out) { $stdout .= $buf } else { $stderr .= $buf }
        }
    }
    waitpid($pid, 0);
    return { status => $? >> 8, signal => $? & 127, out => $stdout, err => $stderr };
}

# openssl(@args, {opts}) with the configuration file loading klms next to the default provider.
sub openssl {
    my $opts = ref $_[-1] eq 'HASH' ? pop : {};
    return run_cmd([$openssl, @_], %$opts);
}

# The same, loading the provider with -provider-path/-provider instead of the configuration.
sub provider_args {
    return ('-provider-path', $ENV{KLMS_PROVIDER_DIR}, '-provider', 'klms', '-provider', 'default');
}

sub openssl_conf { return $ENV{KLMS_OPENSSL_CONF} }

# Path of a built tool (klms-state, klms-cms-sign, ...), from the environment CTest sets.
sub tool {
    my ($name) = @_;
    (my $var = uc $name) =~ s/-/_/g;
    return $ENV{$var} // die "tool $name not built (no \$$var)";
}

sub private_dir {
    my $base = $ENV{TMPDIR} // '/tmp';
    my $dir = tempdir('klms-recipe-XXXXXX', DIR => $base, CLEANUP => 1);
    chmod 0700, $dir;
    return $dir;
}

sub slurp {
    my ($path) = @_;
    open my $fh, '<:raw', $path or die "$path: $!";
    local $/;
    return scalar <$fh>;
}

sub spew {
    my ($path, $data) = @_;
    open my $fh, '>:raw', $path or die "$path: $!";
    print $fh $data;
    close $fh or die "$path: $!";
}

use IO::Select;


# ---- Helpers of the state recipes (test/recipes/state_*.t) ----
use Digest::SHA qw(sha256);
use POSIX ();
push @EXPORT, qw(state_shapes state_sig_q state_show state_slots spawn_cmd spawned_pids kill_spawned run_cmd_st
                 openssl_st state_sign state_verifies);

# run_cmd and openssl with a death by a signal folded into status (128 + signal number), so that a
# crash never passes for exit status 0.
sub run_cmd_st {
    my $r = run_cmd(@_);
    $r->{status} = 128 + $r->{signal} if $r->{signal};
    return $r;
}
sub openssl_st {
    my $opts = ref $_[-1] eq 'HASH' ? pop : {};
    return run_cmd_st([$openssl, @_], %$opts);
}

# openssl pkeyutl -sign of `in` with `key` into `out` (-rawin unless `plain`; `pkeyopt` a list,
# `env` extra environment, `shapes` for the index of an HSS key):
# { status, err, out, sig (bytes or ''), file, q }.
sub state_sign {
    my (%o) = @_;
    my $r = openssl_st('pkeyutl', '-sign', ($o{plain} ? () : '-rawin'), '-inkey', $o{key}, '-in', $o{in},
                       '-out', $o{out}, (map { ('-pkeyopt', $_) } @{ $o{pkeyopt} // [] }), { env => $o{env} // {} });
    $r->{sig} = -e $o{out} ? slurp($o{out}) : '';
    $r->{file} = $o{out};
    $r->{q} = state_sig_q($r->{sig}, $o{shapes}) if length $r->{sig};
    return $r;
}

# Whether openssl pkeyutl -verify -rawin accepts `sigfile` over `in` with `key`.
sub state_verifies {
    my ($key, $in, $sigfile) = @_;
    my $r = openssl_st('pkeyutl', '-verify', '-rawin', '-inkey', $key, '-in', $in, '-sigfile', $sigfile);
    return $r->{status} == 0 && $r->{out} =~ /Signature Verified Successfully/;
}

# Shapes of the HSS levels from the parameter-set names (docs/params.md "Names": LMS_<H>_M<m>_H<h>,
# LMOTS_<H>_N<n>_W<w>; p per RFC 8554 Appendix B): [ { m, h, n, w, p }, ... ].
sub state_shapes {
    my ($lms, $ots) = @_;
    my @lms = split /,/, $lms;
    my @ots = split /,/, $ots;
    @ots = (($ots[0]) x @lms) if @ots == 1 && @lms > 1;
    my @shapes;
    for my $i (0 .. $#lms) {
        my ($m, $h) = $lms[$i] =~ /_M(\d+)_H(\d+)$/ or die "lms name $lms[$i]";
        my ($n, $w) = $ots[$i] =~ /_N(\d+)_W(\d+)$/ or die "ots name $ots[$i]";
        my $u = POSIX::ceil(8 * $n / $w);
        my $lg = 0;
        for (my $v = ((1 << $w) - 1) * $u; $v > 1; $v >>= 1) { $lg++ }
        my $p = $u + POSIX::ceil(($lg + 1) / $w);
        push @shapes, { m => $m, h => $h, n => $n, w => $w, p => $p };
    }
    return \@shapes;
}

# The global index q of an HSS signature (raw bytes) and the per-level q's; without shapes the
# key is L = 1 and q is the u32 at offset 4. undef when the bytes do not have the shape.
sub state_sig_q {
    my ($sig, $shapes) = @_;
    return undef if length($sig) < 8;
    if (!$shapes) {
        return undef if unpack('N', $sig) != 0;
        return wantarray ? (unpack('N', substr($sig, 4, 4)), [unpack('N', substr($sig, 4, 4))]) : unpack('N', substr($sig, 4, 4));
    }
    return undef if unpack('N', $sig) != @$shapes - 1;
    my ($off, $q, @per) = (4, 0);
    for my $i (0 .. $#$shapes) {
        my $s = $shapes->[$i];
        return undef if $off + 4 > length $sig;
        my $qi = unpack('N', substr($sig, $off, 4));
        push @per, $qi;
        $q = $q * (2**$s->{h}) + $qi;
        $off += 4 + (4 + $s->{n} + $s->{p} * $s->{n}) + 4 + $s->{h} * $s->{m};
        $off += 4 + 4 + 16 + $shapes->[$i + 1]{m} if $i < $#$shapes;
    }
    return undef if $off != length $sig;
    return wantarray ? ($q, \@per) : $q;
}

# `klms-state show PATH`, parsed: { status, out, err, next, max, remaining, generation,
# instance, copied (0/1), key_id }.
sub state_show {
    my ($path) = @_;
    my $r = run_cmd_st([tool('klms-state'), 'show', $path]);
    my %info = (status => $r->{status}, out => $r->{out}, err => $r->{err});
    $info{next} = $1 if $r->{out} =~ /^next index:\s+(\d+)/m;
    $info{max} = $1 if $r->{out} =~ /^max signatures:\s+(\d+)/m;
    $info{remaining} = $1 if $r->{out} =~ /^remaining:\s+(\d+)/m;
    $info{generation} = $1 if $r->{out} =~ /^generation:\s+(\d+)/m;
    $info{instance} = $1 if $r->{out} =~ /^instance id:\s+([0-9a-f]+)/m;
    $info{key_id} = $1 if $r->{out} =~ /^key id:\s+([0-9a-f]+)/m;
    $info{copied} = $r->{out} =~ /^copied\/restored:\s+YES/m ? 1 : 0 if $r->{out} =~ /^copied\/restored:/m;
    return \%info;
}

# Both slots of a state file read raw (state/file_format.h, format versions 1 and 2):
# { size, slots => [ { valid, version, generation, next, max }, x2 ], current => index of the valid
# slot with the larger generation }.
sub state_slots {
    my ($path) = @_;
    my $data = slurp($path);
    my %out = (size => length $data, slots => []);
    for my $b (0, 1) {
        my $block = substr($data, $b * 4096, 208) // '';
        my %s = (valid => 0);
        my $version = length $block >= 12 ? unpack('L<', substr($block, 8, 4)) : 0;
        my $summed = $version == 1 ? 144 : $version == 2 ? 176 : 0;
        if ($summed && length $block >= $summed + 32 && substr($block, 0, 8) eq 'KLMSSTAT'
            && sha256(substr($block, 0, $summed)) eq substr($block, $summed, 32)) {
            @s{qw(generation next max)} = unpack('Q< Q< Q<', substr($block, 16, 24));
            $s{version} = $version;
            $s{valid} = 1;
        }
        push @{ $out{slots} }, \%s;
    }
    my @valid = grep { $out{slots}[$_]{valid} } 0, 1;
    ($out{current}) = sort { $out{slots}[$b]{generation} <=> $out{slots}[$a]{generation} } @valid;
    return \%out;
}

# Starts a command in the background with the environment run_cmd gives (provider configuration,
# sanitizer runtime) plus `env`; stdout and stderr go to the files `out` and `err` (default
# /dev/null), stdin is /dev/null. Returns the pid; spawned_pids() lists every pid started, for END
# blocks that kill leftovers.
my @spawned;
sub spawn_cmd {
    my ($argv, %opts) = @_;
    my %env = (command_env(), %{ $opts{env} // {} });
    my $pid = fork() // die "fork: $!";
    if ($pid == 0) {
        @ENV{ keys %env } = values %env;
        delete $ENV{$_} for grep { !defined $ENV{$_} } keys %ENV;
        open STDIN, '<', '/dev/null' or POSIX::_exit(126);
        open STDOUT, '>', $opts{out} // '/dev/null' or POSIX::_exit(126);
        open STDERR, '>', $opts{err} // '/dev/null' or POSIX::_exit(126);
        { exec { $argv->[0] } @$argv }
        POSIX::_exit(127);
    }
    push @spawned, $pid;
    return $pid;
}
sub spawned_pids { return @spawned }
# Kills (SIGKILL) and reaps the children spawn_cmd started that are still running; for END blocks.
# waitpid only answers for our own unreaped children, so a pid reused by another process is never hit.
sub kill_spawned {
    local $?;  # called from END blocks: waitpid must not change the test's exit status
    for my $pid (@spawned) {
        next if waitpid($pid, POSIX::WNOHANG()) != 0;
        kill 'KILL', $pid;
        waitpid($pid, 0);
    }
}


# ---- Helpers of the command-line flow recipes (digests, keys, sign_verify, x509, cms, interop) ----
# Not exported by default (recipes keep their own short names): `use KlmsTest qw(:DEFAULT :cli);`.
use MIME::Base64 ();
our @EXPORT_OK;
our %EXPORT_TAGS;
my @cli_helpers = qw(cmd_ok cmd_fails sanitizer_report der_tlv der_len der_items hss_spki_der pem_wrap pem_body
                     unhex tohex hss_genpkey flip_byte);
push @EXPORT_OK, @cli_helpers;
$EXPORT_TAGS{cli} = [@cli_helpers];

# A sanitizer's report in a command's stderr (ASan, UBSan, LeakSanitizer), or undef.
sub sanitizer_report {
    my ($r) = @_;
    return $1 if $r->{err} =~ /(ERROR: \w*Sanitizer.*|runtime error: .*|SUMMARY: \w*Sanitizer.*)/;
    return undef;
}

sub cmd_diag {
    my ($r) = @_;
    my $out = length $r->{out} > 2000 ? substr($r->{out}, 0, 2000) . '...' : $r->{out};
    return "exit $r->{status}, signal $r->{signal}\n--- stdout\n$out\n--- stderr\n$r->{err}";
}

# cmd_ok($r, $name, [qr/stdout/]): exit 0, no signal, no sanitizer report, stdout matching.
sub cmd_ok {
    my ($r, $name, $out_re) = @_;
    require Test::More;
    my $ok = $r->{status} == 0 && $r->{signal} == 0 && !defined sanitizer_report($r)
        && (!defined $out_re || $r->{out} =~ $out_re);
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    Test::More::ok($ok, $name) or Test::More::diag(cmd_diag($r));
    return $ok;
}

# cmd_fails($r, qr/error text/, $name, %o): a clean failure: non-zero exit (exactly o{status} when
# given), no signal, no sanitizer report, and the error text on stderr (stdout too with o{any}).
sub cmd_fails {
    my ($r, $err_re, $name, %o) = @_;
    require Test::More;
    my $text = $o{any} ? "$r->{out}\n$r->{err}" : $r->{err};
    my $status_ok = defined $o{status} ? $r->{status} == $o{status} : $r->{status} != 0;
    my $ok = $status_ok && $r->{signal} == 0 && !defined sanitizer_report($r) && $text =~ $err_re;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    Test::More::ok($ok, $name) or Test::More::diag("expected a failure matching $err_re\n" . cmd_diag($r));
    return $ok;
}

# DER: a length, and one TLV (tag byte, content bytes).
sub der_len {
    my ($n) = @_;
    return chr($n) if $n < 0x80;
    my $bytes = '';
    while ($n > 0) { $bytes = chr($n & 0xff) . $bytes; $n >>= 8 }
    return chr(0x80 | length $bytes) . $bytes;
}
sub der_tlv {
    my ($tag, $content) = @_;
    return chr($tag) . der_len(length $content) . $content;
}

# The consecutive TLVs of DER bytes: ({ tag, content, raw }, ...); dies on anything malformed.
sub der_items {
    my ($der) = @_;
    my @items;
    my $pos = 0;
    while ($pos < length $der) {
        die 'der_items: truncated' if $pos + 2 > length $der;
        my $tag = ord substr($der, $pos, 1);
        my $len = ord substr($der, $pos + 1, 1);
        my $hdr = 2;
        if ($len & 0x80) {
            my $n = $len & 0x7f;
            die 'der_items: bad length' if $n == 0 || $n > 4 || $pos + 2 + $n > length $der;
            $len = 0;
            $len = $len * 256 + ord(substr($der, $pos + 2 + $_, 1)) for 0 .. $n - 1;
            $hdr += $n;
        }
        die 'der_items: content overruns' if $pos + $hdr + $len > length $der;
        push @items, { tag => $tag, content => substr($der, $pos + $hdr, $len), raw => substr($der, $pos, $hdr + $len) };
        $pos += $hdr + $len;
    }
    return @items;
}

# SubjectPublicKeyInfo of a raw HSS public key (RFC 9708): SEQUENCE { SEQUENCE { OID
# id-alg-hss-lms-hashsig }, BIT STRING 00 || key }; with rfc8708 => 1 the BIT STRING holds an
# OCTET STRING around the key (the older RFC 8708 form); params => DER adds parameters.
sub hss_spki_der {
    my ($raw, %o) = @_;
    my $oid = der_tlv(0x06, "\x2a\x86\x48\x86\xf7\x0d\x01\x09\x10\x03\x11");
    my $alg = der_tlv(0x30, $oid . ($o{params} // ''));
    my $key = $o{rfc8708} ? der_tlv(0x04, $raw) : $raw;
    return der_tlv(0x30, $alg . der_tlv(0x03, "\x00" . $key));
}

# PEM armour around DER, and the DER inside the first PEM block of a text.
sub pem_wrap {
    my ($label, $der) = @_;
    return "-----BEGIN $label-----\n" . MIME::Base64::encode_base64($der, '') =~ s/(.{1,64})/$1\n/gr
        . "-----END $label-----\n";
}
sub pem_body {
    my ($pem) = @_;
    my ($b64) = $pem =~ /-----BEGIN [^-]+-----\r?\n(.*?)-----END/s or return undef;
    return MIME::Base64::decode_base64($b64);
}

sub unhex { my ($h) = @_; $h =~ s/[\s:]//g; return pack('H*', $h) }
sub tohex { return unpack('H*', $_[0]) }

# hss_genpkey($out, @pkeyopts, [{run options}]): openssl genpkey -algorithm HSS-LMS.
sub hss_genpkey {
    my ($out, @pkeyopts) = @_;
    my $opts = @pkeyopts && ref $pkeyopts[-1] eq 'HASH' ? pop @pkeyopts : {};
    return openssl('genpkey', '-algorithm', 'HSS-LMS', (map { ('-pkeyopt', $_) } @pkeyopts), '-out', $out, $opts);
}

# flip_byte($from, $to, $offset, [$mask]): copies a file with one byte XORed (default 0x01);
# a negative offset counts from the end. Returns $to.
sub flip_byte {
    my ($from, $to, $offset, $mask) = @_;
    my $data = slurp($from);
    $offset += length $data if $offset < 0;
    die "flip_byte: offset $offset outside $from" if $offset < 0 || $offset >= length $data;
    substr($data, $offset, 1) = chr(ord(substr($data, $offset, 1)) ^ ($mask // 0x01));
    spew($to, $data);
    return $to;
}


# ---- The OpenSSL under test (scripts/test-openssl.sh runs the suite on 3.0 ... 4.0) ----
# Where the CLI differs between versions a recipe names both behaviours and checks the one of the
# version under test: openssl_version() is [major, minor, patch] from `openssl version`;
# openssl_at_least(3, 6) compares; default_has_lms() says whether the default provider has
# OpenSSL's own (verify-only) LMS, built with enable-lms on 3.6+.
push @EXPORT, qw(openssl_version openssl_at_least default_has_lms);
my @version_cache;
sub openssl_version {
    return [@version_cache] if @version_cache;
    my $r = run_cmd([$openssl, 'version'], env => { OPENSSL_CONF => undef });
    my ($maj, $min, $pat) = $r->{out} =~ /^OpenSSL (\d+)\.(\d+)\.(\d+)/
        or die "cannot tell the OpenSSL version from '$r->{out}'";
    @version_cache = ($maj, $min, $pat);
    return [@version_cache];
}
sub openssl_at_least {
    my ($maj, $min, $pat) = @_;
    my $v = openssl_version();
    return ($v->[0] <=> $maj || $v->[1] <=> ($min // 0) || $v->[2] <=> ($pat // 0)) >= 0;
}
my $default_lms;
sub default_has_lms {
    return $default_lms if defined $default_lms;
    my $r = run_cmd([$openssl, 'list', '-signature-algorithms', '-provider', 'default'],
                    env => { OPENSSL_CONF => undef });
    $default_lms = ($r->{status} == 0 && $r->{out} =~ /\bLMS\b.*\@ default/) ? 1 : 0;
    # The stage that builds OpenSSL with enable-lms (scripts/test.sh stage 5) sets
    # KLMS_EXPECT_OPENSSL_LMS: there a default provider without LMS is a broken stage, not a skip.
    die "KLMS_EXPECT_OPENSSL_LMS is set but $openssl has no LMS in its default provider\n"
        if !$default_lms && $ENV{KLMS_EXPECT_OPENSSL_LMS};
    return $default_lms;
}

# The openssl apps' message when a key file cannot be loaded (apps/lib/apps.c), by version:
#   3.0:       "Could not read <what> from <file>"   (<what>: key, key of Public Key, public key)
#   3.5, 3.6:  "Could not find <private key|public key>[ of <what>] from <file>"
#   4.0:       "Could not find or decode <private key|public key>[ of <what>] from <file>"
# (3.1 to 3.4 are not tested; they are taken to print 3.0's form.) cannot_load_re($what3_0, [$file]).
push @EXPORT, qw(cannot_load_re);
sub cannot_load_re {
    my ($what, $file) = @_;
    my $from = defined $file ? 'from ' . quotemeta($file) : 'from';
    return qr/Could not read \Q$what\E $from/ unless openssl_at_least(3, 5);
    my $verb = openssl_at_least(4, 0) ? 'find or decode' : 'find';
    return qr/Could not $verb (?:private key|public key)(?: of [\w ]+)? $from/;
}

# How openssl's text output names the OID 1.2.840.113549.1.9.16.3.17: up to 3.6 it is not in
# OpenSSL's object table and the provider registers it (short name id-alg-hss-lms-hashsig, long
# name HSS-LMS), so `x509 -text` says HSS-LMS and asn1parse without the provider prints the
# number; 4.0 has it built in as id-alg-hss-lms-hashsig with no long name, so both print that.
push @EXPORT, qw(hss_text_name hss_asn1parse_name);
sub hss_text_name { return openssl_at_least(4, 0) ? 'id-alg-hss-lms-hashsig' : 'HSS-LMS' }
sub hss_asn1parse_name { return openssl_at_least(4, 0) ? 'id-alg-hss-lms-hashsig' : '1.2.840.113549.1.9.16.3.17' }

1;
