# Key-file tampering: every field of the PKCS#8 private key the decoder reads (docs/formats.md
# "Formats and interoperability": "KLMS" | version | L | (LMS type, LM-OTS type) x L | SEED | I | flags | u16 length |
# state-file path, inside OneAsymmetricKey with its version and publicKey), changed and re-encoded
# as plain PEM, next to the original key and sharing its state file. For each change: sign with the
# original, with the tampered key, and with the original again. Either the provider refuses the
# tampered key (at load or at signing, with an error), or every one-time key still signs only its
# own messages: the ledger (test/support/Ledger.pm) over the three signatures, judged under the
# ORIGINAL public key and verified by the real openssl, finds no reuse. A signature of the tampered
# key that does not verify under the original public key used other one-time keys (another SEED):
# it is not counted.
use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);
use ReuseTest;

my $dir = private_dir();
mkdir "$dir/st", 0700 or die;

my %totals = (signers => 0, signatures => 0, pairs => 0, reuses => 0);
my $seq = 0;
sub sign_with {
    my ($key, $text) = @_;
    my $i = ++$seq;
    spew("$dir/s$i.msg", $text);
    my $r = openssl_limited(120, 'pkeyutl', '-sign', '-rawin', '-inkey', $key, '-in', "$dir/s$i.msg", '-out', "$dir/s$i.sig");
    $totals{signers}++;
    $r->{sig} = -s "$dir/s$i.sig" ? slurp("$dir/s$i.sig") : undef;
    $r->{msg} = $text;
    my ($reason) = $r->{err} =~ /error:[0-9A-Fa-f]+:[^:\n]*:[^:\n]*:([^:\n]+)/;
    $r->{reason} = $reason // (split /\n/, $r->{err})[0] // '';
    return $r;
}

# The fields of the privateKey octets: [ name, offset, length ].
sub fields {
    my ($priv) = @_;
    my $L = ord substr($priv, 5, 1);
    my @f = (['magic', 0, 4], ['version', 4, 1], ['L', 5, 1]);
    my $off = 6;
    my $m;
    for my $i (1 .. $L) {
        push @f, ["level $i LMS type", $off, 4], ["level $i LM-OTS type", $off + 4, 4];
        my $code = unpack('N', substr($priv, $off, 4));
        $m //= Ledger::lms_params($code)->{m};
        $off += 8;
    }
    push @f, ['SEED', $off, $m];
    $off += $m;
    push @f, ['I', $off, 16], ['flags', $off + 16, 1], ['path length', $off + 17, 2], ['path', $off + 19, length($priv) - $off - 19];
    return @f;
}

# Variants of a field: [ description, new privateKey octets ].
sub variants {
    my ($priv, $name, $off, $len) = @_;
    my $field = substr($priv, $off, $len);
    my $with = sub { my ($new) = @_; my $p = $priv; substr($p, $off, $len) = $new; return $p };
    my @v;
    if ($name =~ /type/) {
        my $code = unpack('N', $field);
        if ($name =~ /LMS type/) {
            my $other = $code == 5 ? 6 : 5;  # H5 <-> H10 of the same hash and m
            push @v, ["$code -> $other (another height)", $with->(pack('N', $other))];
            push @v, ["$code -> 0x0a (m = 24)", $with->(pack('N', 0x0a))];
            push @v, ["$code -> 0xE0000100 (LSH-256, H5)", $with->(pack('N', 0xE0000100))];
        } else {
            push @v, ["$code -> 2 (W2)", $with->(pack('N', 2))], ["$code -> 4 (W8)", $with->(pack('N', 4))];
            push @v, ["$code -> 0xE0000102 (LSH-256 W4)", $with->(pack('N', 0xE0000102))];
        }
        push @v, ["$code -> 0xffffffff (unknown)", $with->(pack('N', 0xffffffff))];
    } elsif ($name eq 'L') {
        my $L = ord $field;
        push @v, map { ["$L -> $_", $with->(chr $_)] } grep { $_ != $L } 0, 1, 2, 3, 9;
    } elsif ($name eq 'version' || $name eq 'flags') {
        my $b = ord $field;
        push @v, map { [sprintf('0x%02x -> 0x%02x', $b, $b ^ $_), $with->(chr($b ^ $_))] } 0x01, 0x02, 0x80;
    } elsif ($name eq 'path length') {
        my $n = unpack('n', $field);
        push @v, map { ["$n -> $_", $with->(pack('n', $_))] } $n - 1, $n + 1, 0, 0xffff;
    } elsif ($name eq 'path') {
        my $p = $field;
        (my $dot = $p) =~ s{/([^/]+)\z}{/./$1};
        (my $slash = $p) =~ s{/([^/]+)\z}{//$1};
        (my $other = $p) =~ s{.\z}{X};
        my $tail = $off - 2;
        for my $alt (['the same file as dir/./name', $dot], ['the same file as dir//name', $slash], ['another file', $other],
                     ['a relative path', substr($p, 1)]) {
            my $q = $priv;
            substr($q, $tail, 2 + $len) = pack('n', length $alt->[1]) . $alt->[1];
            push @v, [$alt->[0], $q];
        }
    } else {  # magic, SEED, I: flip the first and the last byte
        push @v, ['first byte flipped', $with->(chr(ord(substr($field, 0, 1)) ^ 1) . substr($field, 1))];
        push @v, ['last byte flipped', $with->(substr($field, 0, -1) . chr(ord(substr($field, -1)) ^ 0x80))] if $len > 1;
    }
    return @v;
}

# PEM of a OneAsymmetricKey with these parts.
sub encode_key {
    my (%p) = @_;
    my $body = der_tlv(0x02, $p{version}) . $p{alg} . der_tlv(0x04, $p{priv}) . ($p{pub} // '');
    return pem_wrap('PRIVATE KEY', der_tlv(0x30, $body));
}

my @fails;
for my $shape (['L2', 'LMS_SHA256_M32_H5,LMS_SHA256_M32_H5', 'LMOTS_SHA256_N32_W4'],
               ['L1', 'LMS_SHA256_M32_H5', 'LMOTS_SHA256_N32_W4']) {
    my ($sname, $lms, $ots) = @$shape;
    # The field list, from a first key of this shape.
    my $probe = "$dir/$sname-probe.pem";
    hss_key($probe, "$dir/st/$sname-probe.state", $lms, $ots)->{status} == 0 or die 'genpkey';
    my @outer = der_items((der_items(pem_body(slurp($probe))))[0]{content});
    my @cases;
    push @cases, ['PKCS#8 version', '1 -> 0', sub { my %p = @_; $p{version} = "\x00"; %p }];
    push @cases, ['PKCS#8 publicKey', 'last byte flipped', sub { my %p = @_; my $raw = $p{pub}; substr($raw, -1, 1) = chr(ord(substr($raw, -1)) ^ 1); $p{pub} = $raw; %p }];
    push @cases, ['PKCS#8 publicKey', 'left out', sub { my %p = @_; delete $p{pub}; %p }];
    for my $f (fields($outer[2]{content})) {
        my ($name, $off, $len) = @$f;
        for my $v (variants($outer[2]{content}, $name, $off, $len)) {
            my $i = @cases;
            push @cases, [$name, $v->[0], sub { my %p = @_; $p{priv} = $p{variant}; %p }, $v->[1], $off, $len, $name];
        }
    }
    for my $c (@cases) {
        my ($field, $what, $change) = @$c;
        my $n = ++$seq;
        my ($key, $state) = ("$dir/$sname-$n.pem", "$dir/st/$sname-$n.state");
        hss_key($key, $state, $lms, $ots)->{status} == 0 or die 'genpkey';
        my @it = der_items((der_items(pem_body(slurp($key))))[0]{content});
        my %parts = (version => $it[0]{content}, alg => $it[1]{raw}, priv => $it[2]{content}, pub => $it[3] ? $it[3]{raw} : undef);
        # The same field of this key (the variants were computed on the probe: recompute here).
        if (defined $c->[3]) {
            my ($v) = grep { $_->[0] eq $what } variants($parts{priv}, $c->[6], $c->[4], $c->[5]);
            $parts{variant} = $v->[1];
        }
        my %t = $change->(%parts);
        my $tampered = "$dir/$sname-$n-tampered.pem";
        spew($tampered, encode_key(%t));
        my $ledger = reuse_ledger(pubout($key));
        my @sigs;
        my $a = sign_with($key, "original key, before: $sname $field $what");
        my $b = sign_with($tampered, "tampered key: $sname $field $what");
        my $c2 = sign_with($key, "original key, after: $sname $field $what");
        my $outcome;
        if ($b->{status} != 0) {
            $outcome = ($b->{err} =~ /Could not read private key|decode/i ? 'refused at load' : 'refused at signing') . ": $b->{reason}";
        }
        my @added;
        for my $s ([$a, 'original before'], [$b, 'tampered'], [$c2, 'original after']) {
            next unless $s->[0]{status} == 0 && defined $s->[0]{sig};
            push @added, [$s->[1], $ledger->add(sig => $s->[0]{sig}, msg => $s->[0]{msg}, label => $s->[1])];
        }
        if (!defined $outcome) {
            my ($t) = grep { $_->[0] eq 'tampered' } @added;
            $outcome = $t && $t->[1]{ok} ? "signed (verifies under the original public key, q $t->[1]{q})"
                                         : 'signed (does not verify under the original public key)';
        }
        my $sum = $ledger->summary;
        $totals{$_} += $sum->{$_} for qw(signatures pairs reuses);
        my $ok = subtest "$sname, $field: $what -> $outcome" => sub {
            is($a->{status}, 0, 'the original key signs before') or diag $a->{err};
            ok(!$b->{hung} && !$b->{signal} && ($b->{status} == 0 || $b->{err} =~ /\S/), 'the tampered key signs or refuses clearly')
                or diag "status $b->{status}: $b->{err}";
            ok($c2->{status} == 0 || $c2->{err} =~ /\S/, 'the original key afterwards signs or refuses clearly') or diag $c2->{err};
            ledger_ok($ledger, "$sname $field $what");
        };
        push @fails, "$sname, $field: $what: " . join('; ', $ledger->reuses) unless $ok;
    }
}
note("failing: $_") for @fails;
reuse_summary(%totals);
done_testing();
