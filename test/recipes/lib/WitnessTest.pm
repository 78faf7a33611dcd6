# WitnessTest: keys, signatures and klms-state runs against one real swtpm (SwTpm.pm), each
# signature added to its key's independent ledger (test/support/Ledger.pm) — the helpers of the
# witness recipes that judge a sequence of restores, clears and retirements by "no index twice".
#
#   my $w = WitnessTest->new(dir => $dir, tpm => $tpm);
#   my $k = $w->new_key(dir => $d, lms => 'LMS_SHA256_M32_H5');  # { dir, key, state, pub, ledger }
#   my $r = $w->sign($k, state => $other_state_file, tpm => $other_tpm, pkeyopt => [...]);
#   $w->klms_state('restore', ...);  $w->klms_state_on($other_tpm, 'adopt', ...);
package WitnessTest;

use strict;
use warnings;
use Test::More;
use KlmsTest qw(:DEFAULT :cli);
use ReuseTest;

sub new {
    my ($class, %o) = @_;
    return bless { dir => $o{dir}, tpm => $o{tpm}, n => 0, state_tool => tool('klms-state') }, $class;
}

sub msg {
    my ($self) = @_;
    my $i = ++$self->{n};
    my $m = "$self->{dir}/m$i.msg";
    spew($m, "firmware image $i\n" . ('x' x $i));
    return $m;
}

# A key in a private directory of its own (or `dir`), witnessed by `tpm` (default: this one's).
sub new_key {
    my ($self, %o) = @_;
    my $d = $o{dir} // do { my $x = "$self->{dir}/key" . ++$self->{n}; mkdir $x, 0700 or die "$x: $!"; $x };
    my $tpm = $o{tpm} // $self->{tpm};
    my $k = { dir => $d, key => "$d/" . ($o{name} // 'k') . '.pem', state => "$d/" . ($o{name} // 'k') . '.state' };
    my $r = hss_key($k->{key}, $k->{state}, $o{lms} // 'LMS_SHA256_M32_H5', $o{ots} // 'LMOTS_SHA256_N32_W4',
                    'witness:tpm', { env => $tpm->env });
    die "genpkey: $r->{err}" if $r->{status} != 0;
    $k->{pub} = pubout($k->{key});
    $k->{ledger} = $o{ledger} // reuse_ledger($k->{pub});
    return $k;
}

# One new message signed by key `k` with its own state file or `state` (the state-file override),
# on its TPM or `tpm`; a signature goes to the key's ledger. The result of state_sign, plus q.
sub sign {
    my ($self, $k, %o) = @_;
    my $m = $self->msg;
    my $tpm = $o{tpm} // $self->{tpm};
    my @over = $o{state} ? ("state-file:$o{state}") : ();
    my $r = state_sign(key => $k->{key}, in => $m, out => "$m.sig", pkeyopt => [@over, @{ $o{pkeyopt} // [] }],
                       env => $tpm->env);
    if ($r->{status} == 0) {
        my $a = $k->{ledger}->add(sig => $r->{sig}, msg => slurp($m), label => $o{label} // $m);
        $r->{q} = $a->{q};
        $r->{counted} = $a->{ok};
        $k->{last_sig} = "$m.sig";
    }
    return $r;
}

# `count` signatures that must all succeed; their indices.
sub signs_ok {
    my ($self, $k, $count, $name, %o) = @_;
    local $Test::Builder::Level = $Test::Builder::Level + 1;
    my @q;
    for (1 .. $count) {
        my $r = $self->sign($k, %o);
        return fail("$name: signature $_: $r->{err}") if $r->{status} != 0 || !$r->{counted};
        push @q, $r->{q};
    }
    pass("$name: $count signatures (q = @q)");
    return @q;
}

# Tries to sign once; a signature, if made, is judged by the ledger like every other.
sub try_sign {
    my ($self, $k, %o) = @_;
    my $r = $self->sign($k, %o);
    note("$o{label}: " . ($r->{status} == 0 ? "signed q=$r->{q}" : "refused: $r->{err}")) if $o{label};
    return $r;
}

sub klms_state { my ($self, @a) = @_; return $self->klms_state_on($self->{tpm}, @a) }
sub klms_state_on {
    my ($self, $tpm, @a) = @_;
    return run_limited(120, [$self->{state_tool}, @a], env => $tpm->env, stdin => '');
}

# tpm2-tools against `tpm` (owner and lockout authorization empty, as on a fresh TPM). Not our code:
# without the sanitizer preload and without klms.cnf (in the asan build its libcrypto would load the
# instrumented klms.so into them: tpm2_clear and tpm2_nvdefine then hung until their deadline).
sub tpm2 {
    my ($self, $tpm, @cmd) = @_;
    return run_limited(30, [@cmd], env => { TPM2TOOLS_TCTI => $tpm->tcti, LD_PRELOAD => undef, OPENSSL_CONF => undef });
}

1;
