# The etcd cluster harness (test/recipes/lib/EtcdCluster.pm) tested on its own with etcdctl alone:
# a real 3-member etcd cluster on loopback, nothing mocked. What the fleet witness recipes rely on:
# quorum loss makes writes fail within a bound and a restart heals it; a member removed and added
# again (a new member id) serves reads; a snapshot restore rolls the store back (later keys gone,
# revision lower, cluster id unchanged: the rollback a fleet witness must live with); TLS with
# client certificates (another CA's client is refused at the handshake); RBAC (a signer writes only
# under its prefix, a reader writes nothing); a taken port makes the start fail with the log, not
# hang; no member process outlives the cluster.
use strict;
use warnings;
use Test::More;
use Time::HiRes qw(time usleep);
use IO::Socket::INET;
use MIME::Base64 ();
use KlmsTest;
use EtcdCluster;

unless (EtcdCluster::available()) {
    # CI installs etcd (scripts/install-deps.sh): there a missing one is a failure, not a skip.
    BAIL_OUT('etcd / etcdctl not installed (scripts/install-deps.sh installs etcd-server etcd-client)') if $ENV{CI};
    plan skip_all => 'etcd-server / etcd-client not installed: the fleet harness cannot be tested here';
}

# The harness runs etcd and etcdctl only: nothing of klms for the sanitizers to watch.
plan skip_all => 'the etcd harness test runs no klms code: not repeated under the sanitizers'
    if $ENV{KLMS_SANITIZER_PRELOAD};

my $dir = private_dir();
my @pids;   # every member pid seen, to check none is left at the end

sub ctl_ok {
    my ($c, @args) = @_;
    my $name = pop @args;
    my $r = $c->etcdctl(@args);
    ok($r->{status} == 0, $name) or diag("etcdctl @args: status $r->{status}\n$r->{out}$r->{err}");
    return $r;
}
# The same after a fault that may cost an election: a loaded machine (CI's two cores running the
# suite) can take longer than etcdctl's command timeout to elect, so up to three tries, each
# reported; a cluster that never answers still fails.
sub ctl_ok_after_fault {
    my ($c, @args) = @_;
    my $name = pop @args;
    my $r;
    for my $try (1 .. 3) {
        $r = $c->etcdctl(@args);
        last if $r->{status} == 0;
        diag("$name: try $try: status $r->{status} (an election under load?)");
    }
    ok($r->{status} == 0, $name) or diag("etcdctl @args: status $r->{status}\n$r->{out}$r->{err}");
    return $r;
}
sub value_of {
    my ($c, $key, %o) = @_;
    my $r = $c->etcdctl({ %o }, 'get', $key, '--print-value-only');
    return $r->{status} == 0 ? $r->{out} =~ s/\n\z//r : undef;
}
# A subtest that says how long it took (the recipe has a time budget: about a minute).
sub timed {
    my ($name, $code) = @_;
    my $t0 = time;
    subtest $name => $code;
    note(sprintf('%.1f s: %s', time - $t0, $name));
}
sub record_pids { my ($c) = @_; push @pids, grep { defined } map { $c->pid($_) } 0 .. $c->members - 1 }

my $t_start = time;
my $c = EtcdCluster->start(dir => $dir, members => 3);
record_pids($c);
note(sprintf('3 members healthy after %.1f s: %s', time - $t_start, $c->endpoints));

timed 'three members on loopback' => sub {
    my @urls = split /,/, $c->endpoints;
    is(scalar @urls, 3, 'three client URLs');
    like($_, qr{^http://127\.0\.0\.1:\d+$}, "$_ is loopback") for @urls;
    my %ports = map { (m/:(\d+)$/)[0] => 1 } @urls;
    is(scalar keys %ports, 3, 'on three different ports');
    is($c->env->{KLMS_ETCD_ENDPOINTS}, $c->endpoints, 'env names the endpoints');
    my $list = ctl_ok($c, 'member', 'list', 'member list');
    is(scalar(() = $list->{out} =~ /, started, m\d,/g), 3, 'three members started') or diag $list->{out};
    my $rev = $c->revision;
    ctl_ok($c, 'put', 'fleet/hello', 'world', 'put');
    is(value_of($c, 'fleet/hello'), 'world', 'get reads it back');
    cmp_ok($c->revision, '>', $rev, 'the put raised the cluster revision');
    my @ids = map { $c->cluster_id($_) } 0 .. 2;
    like($ids[0], qr/^[1-9]\d*$/, "cluster id $ids[0]");
    is_deeply([@ids[1, 2]], [@ids[0, 0]], 'every member reports the same cluster id');
};

timed 'quorum lost and regained' => sub {
    $c->stop_member(1);
    $c->stop_member(2);
    ok(!$c->running(1) && !$c->running(2), 'two of three members stopped');
    my $r = $c->etcdctl({ command_timeout => 3 }, 'put', 'fleet/no-quorum', 'x');
    isnt($r->{status}, 0, 'a put without a quorum fails');
    cmp_ok($r->{secs}, '<', 15, sprintf('and returns within 15 s (%.1f s)', $r->{secs}));
    like($r->{err}, qr/deadline exceeded|timed out|unavailable|no leader/i, 'with a timeout error') or diag $r->{err};
    $c->start_member(1, wait => 0);
    $c->start_member(2, wait => 0);
    my $t0 = time;
    $c->wait_healthy(0 .. 2);
    note(sprintf('healthy again %.1f s after the restarts', time - $t0));
    record_pids($c);
    ctl_ok($c, 'put', 'fleet/quorum', 'back', 'a put works again');
    is(value_of($c, 'fleet/quorum'), 'back', 'and reads back');
    # A put that timed out is not a put that failed: when the lone member was the leader, the
    # entry sits in its log and is committed once the quorum is back (seen in about half the runs).
    # A fleet witness must treat a timeout as "may have happened".
    my $late = value_of($c, 'fleet/no-quorum');
    like($late, qr/^x?$/, 'the timed-out put is either absent or applied late, nothing else');
    note($late eq 'x' ? 'the timed-out put was applied after the quorum came back'
                      : 'the timed-out put was dropped');
};

timed 'a suspended member' => sub {
    $c->suspend_member(0);
    my $r = $c->etcdctl({ endpoints => $c->endpoint(0), command_timeout => 2 }, 'get', 'fleet/quorum');
    isnt($r->{status}, 0, 'a request to the stopped (SIGSTOP) member fails');
    cmp_ok($r->{secs}, '<', 15, sprintf('within 15 s (%.1f s)', $r->{secs}));
    my $others = join ',', map { $c->endpoint($_) } 1, 2;
    ctl_ok_after_fault($c, { endpoints => $others }, 'put', 'fleet/suspended', 'yes', 'the other two still take writes');
    $c->resume_member(0);
    $c->wait_healthy(0);
    pass('resumed and healthy');
};

timed 'a member killed and restarted' => sub {
    my $pid = $c->pid(1);
    $c->kill_member(1);
    ok(!$c->running(1) && kill(0, $pid) == 0, 'm1 killed (SIGKILL) and reaped');
    ctl_ok_after_fault($c, { endpoints => join(',', map { $c->endpoint($_) } 0, 2) }, 'put', 'fleet/while-killed', 'k',
                       'the other two take a write');
    $c->start_member(1);
    record_pids($c);
    my $got;
    for (1 .. 150) {  # a serializable get: m1's own store, once it has caught up (15 s under load)
        my $r = $c->etcdctl({ endpoints => $c->endpoint(1) }, 'get', 'fleet/while-killed', '--consistency=s', '--print-value-only');
        $got = $r->{out};
        last if $got eq "k\n";
        usleep(100_000);
    }
    is($got, "k\n", 'restarted from its data dir, it has caught up');
    is(value_of($c, 'fleet/quorum', endpoints => $c->endpoint(1)), 'back', 'and keeps what it had before the kill');
};

timed 'a member removed and added again' => sub {
    my $old = $c->member_id(2);
    like($old, qr/^[0-9a-f]+$/, "m2 is member $old");
    my $old_pid = $c->pid(2);
    $c->remove_member(2);
    ok(!$c->running(2) && kill(0, $old_pid) == 0, 'its process is gone');
    my $list = $c->etcdctl({ endpoints => join(',', map { $c->endpoint($_) } 0, 1) }, 'member', 'list');
    unlike($list->{out}, qr/\bm2\b/, 'm2 is no longer listed') or diag $list->{out};
    ctl_ok_after_fault($c, { endpoints => join(',', map { $c->endpoint($_) } 0, 1) }, 'put', 'fleet/while-removed', 'r',
                       'the remaining two take a write');
    my $new = $c->add_member_again(2);
    record_pids($c);
    isnt($c->member_id(2), $old, 'm2 is back under a new member id') or diag "old $old new $new";
    # A serializable get is answered from m2's own store: it has caught up with the leader.
    my $got;
    for (1 .. 50) {
        $got = value_of($c, 'fleet/while-removed', endpoints => $c->endpoint(2));
        last if defined $got && $got eq 'r';
        usleep(100_000);
    }
    my $r = $c->etcdctl({ endpoints => $c->endpoint(2) }, 'get', 'fleet/while-removed', '--consistency=s', '--print-value-only');
    is($r->{out}, "r\n", 'the new member serves the write made while it was away, from its own store');
};

timed 'a snapshot restored rolls the store back' => sub {
    ctl_ok($c, 'put', 'fleet/before-snapshot', 'kept', 'a key before the snapshot');
    my $before = $c->status;
    $c->snapshot_save("$dir/snap.db");
    ok(-s "$dir/snap.db", 'snapshot saved');
    ctl_ok($c, 'put', 'fleet/after-snapshot', "v$_", "a write after the snapshot ($_)") for 1 .. 3;
    my $later = $c->status;
    cmp_ok($later->{revision}, '>', $before->{revision}, "revision $before->{revision} -> $later->{revision}");
    my $t0 = time;
    $c->restore_from_snapshot("$dir/snap.db");
    record_pids($c);
    note(sprintf('restored and healthy in %.1f s', time - $t0));
    my $after = $c->status;
    is(value_of($c, 'fleet/after-snapshot'), '', 'the key written after the snapshot is gone');
    is(value_of($c, 'fleet/before-snapshot'), 'kept', 'the key before it is there');
    is($after->{cluster_id}, $before->{cluster_id}, "the cluster id is unchanged ($after->{cluster_id})");
    cmp_ok($after->{revision}, '<', $later->{revision}, "the revision went down: $later->{revision} -> $after->{revision}");
    is($after->{revision}, $before->{revision}, 'to the revision of the snapshot');
    ctl_ok($c, 'put', 'fleet/after-restore', 'new', 'the restored cluster takes writes');
    is($c->revision, $before->{revision} + 1, 'and hands out the next revision again (etcd 3.4 has no revision bump)');
};

timed 'RBAC: a signer writes under its prefix only, a reader writes nothing' => sub {
    $c->enable_auth('root-pw');
    $c->add_signer('host1', 'pw1', 'fleet/key1/');
    $c->add_reader('auditor', 'pw2', 'fleet/key1/');
    my $signer = { user => 'host1:pw1' };
    my $reader = { user => 'auditor:pw2' };
    ctl_ok($c, $signer, 'put', 'fleet/key1/next', '7', 'the signer writes inside its prefix');
    is(value_of($c, 'fleet/key1/next', user => 'host1:pw1'), '7', 'and reads it');
    my $r = $c->etcdctl($signer, 'put', 'fleet/key2/next', '7');
    isnt($r->{status}, 0, 'the signer cannot write outside its prefix');
    like($r->{err}, qr/permission denied/, 'permission denied') or diag $r->{err};
    $r = $c->etcdctl($signer, 'put', 'fleet/key1', 'x');
    isnt($r->{status}, 0, 'nor the prefix without its trailing slash');
    is(value_of($c, 'fleet/key1/next', user => 'auditor:pw2'), '7', 'the reader reads inside the prefix');
    $r = $c->etcdctl($reader, 'put', 'fleet/key1/next', '8');
    isnt($r->{status}, 0, 'the reader cannot write');
    like($r->{err}, qr/permission denied/, 'permission denied') or diag $r->{err};
    $r = $c->etcdctl({ user => 'host1:wrong' }, 'get', 'fleet/key1/next');
    like($r->{err}, qr/authentication failed/, 'a wrong password fails authentication') or diag $r->{err};
    $r = $c->etcdctl({ anonymous => 1 }, 'get', 'fleet/key1/next');
    isnt($r->{status}, 0, 'no user: refused') or diag $r->{out};
    is(value_of($c, 'fleet/key1/next'), '7', 'root sees the value the reader failed to change');
};

$c->stop;
ok(!(grep { kill 0, $_ } @pids), 'no member process is left after stop (' . scalar(@pids) . ' started)');

timed 'TLS: the right client certificate works, another CA\'s does not' => sub {
    my $t = EtcdCluster->start(dir => $dir, name => 'etcd-tls', members => 3, tls => 1);
    record_pids($t);
    like($t->endpoints, qr{^https://127\.0\.0\.1:\d+(,https://127\.0\.0\.1:\d+){2}$}, 'https endpoints');
    my $env = $t->env;
    ok(-s $env->{$_}, "$_ names a file") for qw(KLMS_ETCD_CACERT KLMS_ETCD_CERT KLMS_ETCD_KEY);
    ctl_ok($t, 'put', 'fleet/tls', 'ok', 'a client with the right certificate writes');
    is(value_of($t, 'fleet/tls'), 'ok', 'and reads');
    my $r = $t->etcdctl({ certs => 'wrong', endpoints => $t->endpoint(0), command_timeout => 2 }, 'get', 'fleet/tls');
    isnt($r->{status}, 0, 'a client certificate of another CA is refused');
    cmp_ok($r->{secs}, '<', 15, sprintf('within 15 s (%.1f s)', $r->{secs}));
    my $log = slurp("$dir/etcd-tls/m0.log");
    like($log, qr/failed to verify client certificate: x509: certificate signed by unknown authority/,
         'the member refused the handshake: unknown authority');
    gateway_checks($t);
    $t->stop;
};

# The JSON gateway as the fleet witness talks to it (libcurl; here the curl CLI): etcd 3.4 paths,
# base64 keys and values, int64 fields as strings, a false "succeeded" left out of the answer.
sub gateway_checks {
    my ($t) = @_;
    return note('curl not installed: the JSON gateway checks are skipped') unless EtcdCluster::curl_available();
    my $b64 = sub { MIME::Base64::encode_base64($_[0], '') };
    $t->enable_auth('root-pw');
    $t->add_signer('host1', 'pw1', 'fleet/key1/');
    my $r = $t->gateway('/v3/auth/authenticate', '{"name":"host1","password":"pw1"}', { certs => 'cn' });
    is($r->{code}, 400, 'gateway with auth: a client certificate with a CN gets HTTP 400');
    like($r->{body}, qr/CommonName of client sending a request against gateway will be ignored/, 'saying the CN is not used');
    $r = $t->gateway('/v3/auth/authenticate', '{"name":"host1","password":"wrong"}');
    like($r->{body}, qr/authentication failed/, 'a wrong password: authentication failed') or diag $r->{body};
    my $token = $t->gateway_token('host1', 'pw1');
    my $k = $b64->('fleet/key1/next');
    my $txn = sub {
        my ($target, $field, $rev, $value, %o) = @_;
        return $t->gateway('/v3/kv/txn', qq({"compare":[{"key":"$k","target":"$target","result":"EQUAL","$field":"$rev"}],)
                           . qq("success":[{"request_put":{"key":"$k","value":"@{[$b64->($value)]}"}}],)
                           . qq("failure":[{"request_range":{"key":"$k"}}]}), { token => $token, %o });
    };
    $r = $txn->('CREATE', 'create_revision', 0, 'one');
    like($r->{body}, qr/"succeeded":true,"responses":\[\{"response_put":\{"header":\{"revision":"(\d+)"/,
         'txn create-if-absent (create_revision = 0): succeeded') or diag $r->{body};
    my ($created) = $r->{body} =~ /"response_put":\{"header":\{"revision":"(\d+)"/;
    $r = $txn->('CREATE', 'create_revision', 0, 'again');
    unlike($r->{body}, qr/"succeeded"/, 'again: the compare fails, and "succeeded" (false) is left out');
    like($r->{body}, qr/"response_range":.*"create_revision":"$created","mod_revision":"$created","version":"1","value":"\Q@{[$b64->('one')]}\E"/,
         'the failure branch reads the key: its revisions, as strings') or diag $r->{body};
    $r = $txn->('MOD', 'mod_revision', $created, 'two', endpoint => $t->endpoint(1));
    like($r->{body}, qr/"succeeded":true/, 'compare-and-swap on mod_revision, through another member: succeeded') or diag $r->{body};
    $r = $txn->('MOD', 'mod_revision', $created, 'three');
    unlike($r->{body}, qr/"succeeded"/, 'the same stale mod_revision again: refused');
    like($r->{body}, qr/"value":"\Q@{[$b64->('two')]}\E"/, 'the value is the one of the swap that won');
    $r = $t->gateway('/v3/kv/put', qq({"key":"@{[$b64->('fleet/key2/next')]}","value":"eA=="}), { token => $token });
    is($r->{code}, 403, 'outside the prefix: HTTP 403') and like($r->{body}, qr/permission denied/, 'permission denied');
    $r = $t->gateway('/v3/kv/range', qq({"key":"$k"}));
    like($r->{body}, qr/user name is empty/, 'no token: "user name is empty"') or diag $r->{body};
    $r = $t->gateway('/v3/kv/range', qq({"key":"$k"}), { token => 'not.a-token' });
    is($r->{code}, 401, 'a bad token: HTTP 401') and like($r->{body}, qr/invalid auth token/, 'invalid auth token');
    $r = $t->gateway('/v3/kv/range', qq({"key":"$k"}), { certs => 'wrong', token => $token });
    is($r->{code}, 0, 'a client of another CA gets no HTTP answer at all') or diag $r->{body};
    $r = $t->gateway('/v3/kv/range', qq({"key":"$k"}), { certs => 'none', token => $token });
    is($r->{code}, 0, 'nor does a client without a certificate') or diag $r->{body};
    # Quorum lost: a linearizable request waits for the server's request timeout and fails with 503.
    $t->stop_member(1);
    $t->stop_member(2);
    my $t0 = time;
    $r = $txn->('MOD', 'mod_revision', 0, 'lost', timeout => 20);
    my $secs = time - $t0;
    is($r->{code}, 503, sprintf('without a quorum a txn fails with HTTP 503 after %.1f s', $secs)) or diag "$r->{body}$r->{err}";
    cmp_ok($secs, '<', 15, 'within 15 s');
    like($r->{body}, qr/request timed out/, '"request timed out"');
    $r = $t->gateway('/v3/kv/range', qq({"key":"$k","serializable":true}), { token => $token });
    like($r->{body}, qr/"value":"\Q@{[$b64->('two')]}\E"/,
         'while a serializable read is still answered by the lone member (stale reads: a witness must not use them)');
}

timed 'a port already taken: the start fails with the log, bounded' => sub {
    my $taken = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Proto => 'tcp', Listen => 1)
        or die "listen: $!";
    my $t0 = time;
    my $t = eval { EtcdCluster->start(dir => $dir, name => 'etcd-taken', members => 1, timeout => 10, attempts => 1,
                                      ports => [$taken->sockport]) };
    my $err = $@;
    ok(!$t, 'the start fails when the client port is taken');
    like($err, qr/address already in use/, 'and says why, from the member log') or diag $err;
    cmp_ok(time - $t0, '<', 20, sprintf('within the bound (%.1f s)', time - $t0));
    my $r = eval { EtcdCluster->start(dir => $dir, name => 'etcd-retry', members => 1, timeout => 10,
                                      ports => [$taken->sockport]) };
    ok($r, 'with retries allowed it picks other ports and starts') or diag $@;
    record_pids($r) if $r;
    $r->stop if $r;
};

ok(!(grep { kill 0, $_ } @pids), 'no member process is left at the end (' . scalar(@pids) . ' started)');
note(sprintf('etcd_cluster.t: %.1f s', time - $t_start));
done_testing();
