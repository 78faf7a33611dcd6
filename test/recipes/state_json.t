# `klms-state show --json` (man/klms-state.1.scd "JSON OUTPUT"), parsed with core Perl's JSON::PP:
# every documented field with its type, the values checked against what happened to the file
# (signatures made, a lease cut, a copy, an exhaustion) and the key id against SHA-256 of the
# public key itself.
use strict;
use warnings;
use Test::More;
use JSON::PP;
use Digest::SHA qw(sha256_hex);
use KlmsTest qw(:DEFAULT :cli);

my $dir = private_dir();
my $klms_state = tool('klms-state');
my $msg = "$dir/msg.bin";
spew($msg, "json recipe\n");

sub show_json {
    my ($path) = @_;
    my $r = run_cmd([$klms_state, 'show', '--json', $path]);
    my $j = eval { JSON::PP->new->allow_bignum->decode($r->{out}) };
    $r->{json} = $j;
    $r->{parse_error} = $@ unless $j;
    return $r;
}

# The documented fields and their JSON types.
my %type = (schema => 'string', schema_version => 'integer', state_file => 'string', format_version => 'integer',
            signable => 'boolean', refused => 'object|null', kind => 'string', key_id => 'string',
            levels_digest => 'string|null', next_index => 'integer', max_signatures => 'integer', remaining => 'integer',
            exhausted => 'boolean', range => 'object', lease => 'object|null', exhaustion => 'object',
            looks_copied => 'boolean', instance_id => 'string', generation => 'integer', last_reserving_pid => 'integer',
            file_identity => 'object', witness => 'object|null');
sub type_of {
    my ($v) = @_;
    return 'null' unless defined $v;
    return 'boolean' if JSON::PP::is_bool($v);
    return 'object' if ref $v eq 'HASH';
    return 'array' if ref $v eq 'ARRAY';
    return 'integer' if ref $v && $v->isa('Math::BigInt');
    # JSON::PP keeps whether a scalar came from a number or a string.
    my $flags = B::svref_2object(\$v)->FLAGS;
    return ($flags & (B::SVp_IOK() | B::SVp_NOK())) && !($flags & B::SVp_POK()) ? ($v =~ /^\d+$/ ? 'integer' : 'number') : 'string';
}
use B ();

my $key = "$dir/k.pem";
my $state = "$dir/k.state";
my $r = openssl('genpkey', '-algorithm', 'HSS-LMS', '-pkeyopt', 'lms:LMS_SHA256_M32_H5', '-pkeyopt', "state-file:$state",
                '-out', $key);
cmd_ok($r, 'an H5 key');

$r = show_json($state);
cmd_ok($r, 'show --json of a fresh key');
my $j = $r->{json};
ok($j, 'stdout is one JSON object') or diag $r->{parse_error};
like($r->{out}, qr/\A\{.*\}\n\z/s, '... and a newline, nothing else');
is($r->{err}, '', 'nothing on stderr');
for my $field (sort keys %type) {
    ok(exists $j->{$field}, "field $field present");
    like(type_of($j->{$field}), qr/^(?:$type{$field})$/, "field $field: $type{$field}");
}
is($j->{schema}, 'klms-state-show', 'schema');
is($j->{schema_version}, 1, 'schema_version 1');
is($j->{state_file}, $state, 'state_file as given');
is($j->{format_version}, 2, 'format version 2');
is($j->{kind}, 'key', 'kind key');
is($j->{next_index}, 0, 'next_index 0');
is($j->{max_signatures}, 32, 'max_signatures 32 (H5)');
is($j->{remaining}, 32, 'remaining 32');
is_deeply($j->{range}, { start => 0, end => 32 }, 'range [0, 32)');
ok(!$j->{exhausted} && $j->{signable} && !$j->{looks_copied}, 'not exhausted, signable, not copied');
is($j->{refused}, undef, 'refused: null');
is($j->{lease}, undef, 'lease: null');
is($j->{witness}, undef, 'witness: null (no witness)');
# docs/state.md §5: min(T = 100, 32 / 10) = 3, the threshold pkey -text and signing use too.
is_deeply($j->{exhaustion}, { threshold => 3, below_threshold => JSON::PP::false, low_signatures_warning => 100,
                              acknowledged => JSON::PP::false, awaits_acknowledgement => JSON::PP::false },
          'exhaustion threshold 3 (min(100, a tenth of 32)), not acknowledged, not waiting');
is($j->{file_identity}{file_handle}, 'matches', 'file handle matches') if $j->{file_identity}{file_handle} ne 'not_recorded';
is_deeply($j->{file_identity}{recorded}, $j->{file_identity}{actual}, 'recorded identity = actual');
like($j->{$_}, qr/^[0-9a-f]{64}$/, "$_: 64 lowercase hex digits") for qw(key_id levels_digest);
like($j->{instance_id}, qr/^[0-9a-f]{32}$/, 'instance_id: 32 hex digits');

# The key id is SHA-256 of the raw HSS public key: the SubjectPublicKeyInfo's BIT STRING.
my $spki = openssl('pkey', '-in', $key, '-pubout', '-outform', 'DER');
my ($seq) = der_items($spki->{out});
my (undef, $bits) = der_items($seq->{content});
is($j->{key_id}, sha256_hex(substr($bits->{content}, 1)), 'key_id = SHA-256 of the public key');

# Three signatures.
for my $i (1 .. 3) {
    state_sign(key => $key, in => $msg, out => "$dir/s$i.bin")->{status} == 0 or BAIL_OUT('sign');
}
$j = show_json($state)->{json};
is($j->{next_index}, 3, 'after three signatures: next_index 3');
is($j->{remaining}, 29, 'remaining 29');
is($j->{last_reserving_pid} > 0 ? 1 : 0, 1, 'last_reserving_pid set');

# A lease of 5 indices.
$r = run_cmd([$klms_state, 'lease', '--count', '5', $state, "$dir/lease.state"]);
cmd_ok($r, 'klms-state lease --count 5');
my $parent = show_json($state)->{json};
$j = show_json("$dir/lease.state")->{json};
is($j->{kind}, 'lease', 'the lease: kind lease');
is_deeply($j->{range}, { start => 3, end => 8 }, 'range [3, 8)');
is($j->{remaining}, 5, 'remaining 5');
is($j->{lease}{depth}, 1, 'lease depth 1');
is($j->{lease}{parent_instance_id}, $parent->{instance_id}, "parent_instance_id is the parent's instance id");
is($parent->{next_index}, 8, "the parent's next index moved past the lease");
is($j->{exhaustion}{threshold}, 1, "the lease's threshold: a tenth of 5, at least 1");

# A copy: looks copied, not signable, exit 1 (as the text form: signing refuses it).
system('cp', $state, "$dir/copy.state") == 0 or die;
$r = show_json("$dir/copy.state");
is($r->{status}, 1, 'a copy: exit 1');
ok($r->{json}{looks_copied} && !$r->{json}{signable}, 'looks_copied true, signable false');
isnt($r->{json}{file_identity}{actual}{inode}, $r->{json}{file_identity}{recorded}{inode}, 'actual inode differs');

# Nearly exhausted, then exhausted (adopt --advance moves the next index; clamped at the end).
$r = run_cmd([$klms_state, 'adopt', '--advance', '22', '--yes-i-destroyed-the-original', "$dir/copy.state"]);
cmd_ok($r, 'adopt --advance 22 the copy');
$j = show_json("$dir/copy.state")->{json};
is($j->{remaining}, 2, 'remaining 2');
ok($j->{exhaustion}{below_threshold} && $j->{exhaustion}{awaits_acknowledgement} && !$j->{signable},
   'below the threshold: waits for the acknowledgement, not signable');
$r = run_cmd([$klms_state, 'acknowledge', '--key-id', $j->{key_id}, "$dir/copy.state"]);
cmd_ok($r, 'klms-state acknowledge --key-id');
$j = show_json("$dir/copy.state")->{json};
ok($j->{exhaustion}{below_threshold} && $j->{exhaustion}{acknowledged} && !$j->{exhaustion}{awaits_acknowledgement}
   && $j->{signable}, 'acknowledged: still below the threshold, signable again');
is($j->{remaining}, 2, '... and the acknowledgement moved no index');
run_cmd([$klms_state, 'adopt', '--advance', '5', '--yes-i-destroyed-the-original', "$dir/copy.state"]);
$j = show_json("$dir/copy.state")->{json};
ok($j->{exhausted} && !$j->{signable} && $j->{remaining} == 0, 'exhausted: remaining 0, not signable');

# Files that cannot be read: JSON with an error object, exit 1.
$r = show_json("$dir/missing.state");
is($r->{status}, 1, 'a missing file: exit 1');
is($r->{json}{error}{code}, 'state_missing', 'error.code state_missing');
like($r->{json}{error}{message}, qr/missing/, 'error.message says so');
is($r->{json}{schema_version}, 1, 'schema_version there too');
spew("$dir/junk.state", "x" x 300);
chmod 0600, "$dir/junk.state";
$r = show_json("$dir/junk.state");
is($r->{status}, 1, 'not a state file: exit 1');
my $code = $r->{json}{error} ? $r->{json}{error}{code} : $r->{json}{refused}{code};
is($code, 'state_not_a_state_file', 'code state_not_a_state_file');

# A state file name that is not UTF-8: still valid JSON (U+FFFD).
my $odd = "$dir/odd\xff.state";
system('cp', '-p', $state, $odd) == 0 or die;
$r = show_json($odd);
ok($r->{json}, 'a name that is not UTF-8: still valid JSON') or diag $r->{parse_error};

cmd_fails(run_cmd([$klms_state, 'show', '--json']), qr/usage/, 'show --json without a file: usage', status => 2);


# A witnessed key on a real software TPM (test/recipes/lib/SwTpm.pm): the witness object.
SKIP: {
    require SwTpm;
    skip 'swtpm / tpm2-tools not installed', 8 unless SwTpm::available();
    my $tdir = private_dir();
    my $tpm = SwTpm->start($tdir);
    my %tenv = (env => $tpm->env);
    my $wkey = "$tdir/w.pem";
    my $wstate = "$tdir/w.state";
    $r = openssl('genpkey', '-algorithm', 'HSS-LMS', '-pkeyopt', 'lms:LMS_SHA256_M32_H5', '-pkeyopt', 'witness:tpm',
                 '-pkeyopt', "state-file:$wstate", '-out', $wkey, \%tenv);
    cmd_ok($r, 'an H5 key with -pkeyopt witness:tpm');
    state_sign(key => $wkey, in => $msg, out => "$tdir/w1.sig", env => $tpm->env)->{status} == 0 or diag 'sign failed';
    $r = run_cmd([$klms_state, 'show', '--json', $wstate], %tenv);
    $j = eval { JSON::PP->new->decode($r->{out}) };
    is(ref $j->{witness}, 'HASH', 'witness: an object');
    is($j->{witness}{kind}, 'tpm', 'witness.kind tpm');
    is($j->{witness}{state}, 'agrees', 'witness.state agrees');
    is($j->{witness}{high_water}, $j->{next_index}, 'witness.high_water = next_index (' . ($j->{next_index} // '?') . ')');
    like($j->{witness}{nv_index} // '', qr/^\d+$/, 'witness.nv_index: an integer');
    is($j->{witness}{behind_by}, 0, 'witness.behind_by: 0 when it agrees');
    # Without the TPM: the state says so (the provider refuses to sign then).
    $tpm->stop;
    $r = run_cmd([$klms_state, 'show', '--json', $wstate], %tenv);
    $j = eval { JSON::PP->new->decode($r->{out}) };
    isnt($j->{witness}{state} // 'agrees', 'agrees', 'TPM stopped: witness.state is ' . ($j->{witness}{state} // 'undef'));
}

done_testing();
