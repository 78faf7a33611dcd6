# EtcdCluster: a real etcd cluster (Debian's etcd-server and etcd-client, etcd 3.4) for the fleet
# witness recipes, on 127.0.0.1 only, in the test's own directory; started, faulted and stopped by
# the tests themselves, every wait bounded, no process left behind (DESTROY, an END block, and each
# member started under `setpriv --pdeathsig KILL` so that it dies with the test even on SIGKILL).
#
#   my $c = EtcdCluster->start(dir => $d, members => 3, tls => 0|1, timeout => 20, args => [...]);
#                            # args: more etcd flags for every member (--auth-token-ttl 2)
#   $c->endpoints;           # "http://127.0.0.1:P1,http://127.0.0.1:P2,..." (https:// with tls)
#   $c->env;                 # { KLMS_ETCD_ENDPOINTS => ..., with tls KLMS_ETCD_CACERT/_CERT/_KEY }
#   my $r = $c->etcdctl('put', 'k', 'v');             # { status, out, err, secs }
#   my $r = $c->etcdctl({ user => 'u:pw', endpoints => $url, certs => 'wrong' }, 'get', 'k');
#   $c->status;              # { revision, cluster_id, member_id, leader, raft_term } of one member
#   $c->metric($re);         # the sum over the running members of the /metrics lines matching $re
#
# Members are numbered 0 .. members-1 (member names m0, m1, ...). What the faults give, and what
# they cost (measured on a loaded 2-core machine, etcd 3.4.23, heartbeat 50 ms, election 500 ms):
#   stop_member(i)      SIGTERM and reap: an orderly stop (under a second). Two of three stopped:
#                       no quorum, a put fails after etcdctl's --command-timeout (5 s here).
#   kill_member(i)      SIGKILL and reap: a crash; the data dir stays as the kill left it.
#   suspend_member(i)   SIGSTOP: the process is there but answers nothing (a hung host; clients
#   resume_member(i)    time out instead of being refused); SIGCONT resumes it.
#   start_member(i)     the same data dir, --initial-cluster-state existing; waits until the member
#                       is healthy (wait => 0 to not wait), about 1-3 s when a quorum is reachable.
#   remove_member(i)    `etcdctl member remove` through the other members, then the process stops,
#                       its data dir is wiped (the member id is gone for good) and the others are
#                       healthy again (a new leader when it was the leader: 1-5 s). etcd refuses
#                       a membership change until every other member has been connected for 5 s:
#                       right after a restart this waits up to 5 s (retried for at most 20 s).
#   add_member_again(i) `etcdctl member add` with the same name and peer URL, then a start with an
#                       empty data dir and --initial-cluster-state existing: a NEW member id; the
#                       member catches up from the leader (1-3 s).
#   snapshot_save(f)    `etcdctl snapshot save` from one member (the first one running).
#   restore_from_snapshot(f)  stops every member, `etcdctl snapshot restore` into a fresh data dir
#                       per member with the SAME --initial-cluster and token (so the member ids and
#                       the cluster id are the ones of the first start), starts all, waits (2-5 s).
#                       The store goes back to the snapshot: the revision goes DOWN to the
#                       snapshot's, later keys are gone; etcd 3.4 has no --bump-revision, so revision
#                       numbers are handed out again to different writes.
#   A put that times out (no quorum) is not a put that failed: when the lone member was the
#   leader the entry stays in its log and is committed once the quorum is back (etcd_cluster.t
#   sees both outcomes). Over the gateway the same request gets HTTP 503 "request timed out"
#   after about 6 s (etcd's request timeout, 5 s + 2 x election timeout).
#   move_leader         `etcdctl move-leader` to another member: one leader change, a higher raft term.
#   stop                SIGTERM to all, SIGKILL after 2 s, reaped. DESTROY and END do the same.
#                       (A leader whose followers stopped first keeps campaigning on SIGTERM:
#                       etcd 3.4 needs the SIGKILL then.)
#
# The JSON gateway (etcd 3.4: POST /v3/kv/range, /v3/kv/put, /v3/kv/txn, /v3/auth/authenticate;
# /v3beta/ works too, /v3alpha/ is 404): $c->gateway($path, $json, { token, endpoint, certs })
# with the curl CLI, $c->gateway_token($user, $pw). Keys and values are base64, int64 fields are
# JSON strings, and fields at their zero value are left out (a txn whose compare failed has no
# "succeeded" at all; a range of a missing key has no "kvs"). Errors: HTTP 400 "user name is
# empty" (no token), 401 "invalid auth token" (a bad token, one idle for --auth-token-ttl, 300 s,
# or one the member forgot when it restarted: authenticate again), 403 "permission denied" (outside the role's range), 503 "request timed out"
# (no quorum). A serializable range is answered by a member cut off from the quorum, from its
# possibly stale store: a witness must not use serializable reads.
#
# RBAC (etcd's own users and roles; the JSON gateway authenticates with /v3/auth/authenticate
# tokens and does not map a client certificate's CN to a user, so signers use users/passwords;
# worse, with auth enabled it answers any client whose certificate HAS a CN with HTTP 400, so the
# client certificates made here have none, and a fleet's must have none either):
#   $c->enable_auth($root_pw);              # root user with the root role, auth enable
#   $c->add_signer($user, $pw, $prefix);    # role <user>-role: readwrite on [prefix, prefix+1)
#   $c->add_reader($user, $pw, $prefix);    # role <user>-role: read on the prefix only
# After enable_auth every etcdctl call of the harness goes as root unless given { user => ... } or
# { anonymous => 1 }.
#
# TLS (tls => 1): the system openssl CLI (/usr/bin/openssl, without the klms configuration) makes a
# CA, a server certificate for IP:127.0.0.1 (serverAuth and clientAuth: etcd's gateway dials its
# own gRPC port with it), a client certificate without a CN, one with a CN (certs => 'cn'), and a
# second CA with its own client certificate (certs => 'wrong'; the members must refuse its
# handshake). Members run with --client-cert-auth
# and --trusted-ca-file; peer traffic is plain http on loopback.
package EtcdCluster;

use strict;
use warnings;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(usleep time);
use IO::Socket::INET;
use File::Path qw(remove_tree);
use Scalar::Util qw(weaken);
use KlmsTest qw(run_cmd slurp spew);

my $etcd = '/usr/bin/etcd';
my $etcdctl = '/usr/bin/etcdctl';
my $openssl = '/usr/bin/openssl';
my @live;    # every cluster not yet stopped, for the END block

sub available { return -x $etcd && -x $etcdctl && -x $openssl }

# A TCP port on 127.0.0.1 that nothing listens on right now (a bind probe of a random port in
# 20000..59999; the kernel's ephemeral range starts at 32768, so collisions with clients are rare,
# and a member that still loses the race exits with "address already in use": start() retries).
my %handed_out;
sub free_port {
    for (1 .. 200) {
        my $port = 20000 + int(rand(40000));
        next if $handed_out{$port};
        my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => $port, Proto => 'tcp', Listen => 1,
                                      ReuseAddr => 0) or next;
        close $s;
        $handed_out{$port} = 1;
        return $port;
    }
    die "EtcdCluster: no free port on 127.0.0.1 after 200 tries\n";
}

sub start {
    my ($class, %o) = @_;
    my $dir = $o{dir} // die "EtcdCluster->start: dir required\n";
    my $self = bless { dir => $dir, n => $o{members} // 3, tls => $o{tls} ? 1 : 0, timeout => $o{timeout} // 20,
                       heartbeat => $o{heartbeat} // 50, election => $o{election} // 500, members => [],
                       command_timeout => $o{command_timeout} // 5, fixed_ports => $o{ports}, args => $o{args} // [] }, $class;
    $self->{base} = $o{name} // 'etcd';
    mkdir "$dir/$self->{base}", 0700 or die "mkdir $dir/$self->{base}: $!\n" unless -d "$dir/$self->{base}";
    $self->_make_certs if $self->{tls};
    push @live, $self;
    weaken($live[-1]);
    # A test killed by SIGTERM/SIGINT (ctest's timeout) still runs END, which stops the members.
    $SIG{$_} = sub { die "EtcdCluster: test ended by SIG$_[0]\n" } for grep { !$SIG{$_} || $SIG{$_} eq 'DEFAULT' } qw(TERM INT);
    my $attempts = $o{attempts} // 3;
    for my $attempt (1 .. $attempts) {
        $self->_layout($attempt);
        $self->_spawn($_, 'new') for 0 .. $self->{n} - 1;
        my $why = $self->_wait_healthy([0 .. $self->{n} - 1], $self->{timeout});
        return $self unless defined $why;
        my $tail = $self->log_tails;
        $self->_stop_all;
        # A lost port race shows in the log; anything else is not cured by trying again.
        die "EtcdCluster: cluster did not become healthy within $self->{timeout} s: $why\n$tail"
            if $attempt == $attempts || $tail !~ /address already in use/;
    }
    return $self;
}

# Ports, names, data dirs and the bootstrap token of one start attempt.
sub _layout {
    my ($self, $attempt) = @_;
    $self->{token} = sprintf('klms-test-%d-%d-%d-%04x', $$, time, $attempt, int(rand(65536)));
    my $scheme = $self->{tls} ? 'https' : 'http';
    my @m;
    # ports => [client0, peer0, client1, ...] fixes the first attempt's ports (the harness's own
    # test of a port that is taken).
    my @fixed = $attempt == 1 ? @{ $self->{fixed_ports} // [] } : ();
    for my $i (0 .. $self->{n} - 1) {
        my $d = "$self->{dir}/$self->{base}/m$i";
        my ($cp, $pp) = (shift(@fixed) // free_port(), shift(@fixed) // free_port());
        push @m, { name => "m$i", client => $cp, peer => $pp, data => "$d.data.$attempt",
                   log => "$d.log", scheme => $scheme };
        remove_tree($m[-1]{data});
    }
    $_->{client_url} = "$scheme://127.0.0.1:$_->{client}" for @m;
    $_->{peer_url} = "http://127.0.0.1:$_->{peer}" for @m;
    $self->{members} = \@m;
    $self->{initial_cluster} = join ',', map { "$_->{name}=$_->{peer_url}" } @m;
}

sub _make_certs {
    my ($self) = @_;
    my $d = "$self->{dir}/$self->{base}/pki";
    mkdir $d, 0700 or die "mkdir $d: $!\n" unless -d $d;
    my $ssl = sub {
        my $r = run_cmd([$openssl, @_], env => { OPENSSL_CONF => undef, LD_PRELOAD => undef, OPENSSL_MODULES => undef });
        die "EtcdCluster: openssl @_[0..1] failed: $r->{err}\n" if $r->{status} != 0;
    };
    my $key = sub { $ssl->('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', "$d/$_[0].key") };
    for my $ca ('ca', 'wrong-ca') {
        $key->($ca);
        $ssl->('req', '-x509', '-new', '-key', "$d/$ca.key", '-out', "$d/$ca.pem", '-days', '3', '-subj', "/CN=klms test etcd $ca",
               '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
    }
    # The client certificates have no CN: with auth enabled etcd 3.4's JSON gateway answers a client
    # whose certificate has one with HTTP 400 "CommonName of client sending a request against gateway
    # will be ignored and not used as expected" (it cannot pass the CN on as the user). cn-client
    # has one, to show that.
    my %leaf = (server => ['ca', '/CN=klms-test-server', "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n"],
                client => ['ca', '/O=klms test/OU=etcd client', "extendedKeyUsage=clientAuth\n"],
                'cn-client' => ['ca', '/CN=klms-test-cn-client', "extendedKeyUsage=clientAuth\n"],
                'wrong-client' => ['wrong-ca', '/O=klms test/OU=wrong etcd client', "extendedKeyUsage=clientAuth\n"]);
    for my $name (sort keys %leaf) {
        my ($ca, $subject, $ext) = @{ $leaf{$name} };
        $key->($name);
        spew("$d/$name.ext", "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n$ext");
        $ssl->('req', '-new', '-key', "$d/$name.key", '-out', "$d/$name.csr", '-subj', $subject);
        $ssl->('x509', '-req', '-in', "$d/$name.csr", '-CA', "$d/$ca.pem", '-CAkey', "$d/$ca.key", '-CAcreateserial',
               '-days', '3', '-extfile', "$d/$name.ext", '-out', "$d/$name.pem");
    }
    $self->{pki} = $d;
}

# Certificate files { cacert, cert, key }: certs() the client's (no CN), certs('wrong') a client of
# another CA, certs('cn') a client with a CN, certs('server') the members'.
sub certs {
    my ($self, $which) = @_;
    return undef unless $self->{tls};
    my $d = $self->{pki};
    return { cacert => "$d/ca.pem", cert => "$d/server.pem", key => "$d/server.key" } if ($which // '') eq 'server';
    return { cacert => "$d/ca.pem", cert => "$d/wrong-client.pem", key => "$d/wrong-client.key" } if ($which // '') eq 'wrong';
    return { cacert => "$d/ca.pem", cert => "$d/cn-client.pem", key => "$d/cn-client.key" } if ($which // '') eq 'cn';
    return { cacert => "$d/ca.pem", cert => "$d/client.pem", key => "$d/client.key" };
}

sub _spawn {
    my ($self, $i, $state, %o) = @_;
    my $m = $self->{members}[$i];
    my @args = ('--name', $m->{name}, '--data-dir', $m->{data},
                '--listen-client-urls', $m->{client_url}, '--advertise-client-urls', $m->{client_url},
                '--listen-peer-urls', $m->{peer_url}, '--initial-advertise-peer-urls', $m->{peer_url},
                '--initial-cluster', $o{initial_cluster} // $self->{initial_cluster},
                '--initial-cluster-token', $self->{token}, '--initial-cluster-state', $state,
                '--heartbeat-interval', $self->{heartbeat}, '--election-timeout', $self->{election},
                '--logger', 'zap', '--log-outputs', 'stderr', '--enable-v2=false', @{ $self->{args} });
    if ($self->{tls}) {
        my $s = $self->certs('server');
        push @args, '--cert-file', $s->{cert}, '--key-file', $s->{key}, '--trusted-ca-file', $s->{cacert}, '--client-cert-auth';
    }
    my @pdeath = -x '/usr/bin/setpriv' ? ('/usr/bin/setpriv', '--pdeathsig', 'KILL') : ();
    my $pid = fork() // die "fork: $!";
    if ($pid == 0) {
        open STDIN, '<', '/dev/null' or POSIX::_exit(126);
        open STDOUT, '>>', $m->{log} or POSIX::_exit(126);
        open STDERR, '>&', \*STDOUT or POSIX::_exit(126);
        print STDOUT "==== EtcdCluster: start $m->{name} ($state) at " . time . "\n";
        delete @ENV{qw(LD_PRELOAD ETCD_NAME ETCD_DATA_DIR ETCDCTL_ENDPOINTS)};
        { no warnings 'exec'; exec { $pdeath[0] // $etcd } @pdeath, $etcd, @args; }
        POSIX::_exit(127);
    }
    $m->{pid} = $pid;
    return $pid;
}

sub endpoints { return join ',', map { $_->{client_url} } @{ $_[0]{members} } }
sub endpoint { return $_[0]{members}[$_[1]]{client_url} }
sub members { return $_[0]{n} }
sub pid { return $_[0]{members}[$_[1]]{pid} }
sub token { return $_[0]{token} }
sub dir { return $_[0]{dir} }

sub env {
    my ($self) = @_;
    my %e = (KLMS_ETCD_ENDPOINTS => $self->endpoints);
    if ($self->{tls}) {
        my $c = $self->certs;
        @e{qw(KLMS_ETCD_CACERT KLMS_ETCD_CERT KLMS_ETCD_KEY)} = @$c{qw(cacert cert key)};
    }
    return \%e;
}

# etcdctl([{ endpoints, user, anonymous, certs => 'right'|'wrong'|'none', timeout, command_timeout }], @args):
# ETCDCTL_API=3 etcdctl under `timeout`, with the cluster's endpoints and TLS files.
# { status, out, err, secs } (status 124: the whole command hung past `timeout`, default 30 s).
sub etcdctl {
    my $self = shift;
    my $o = ref $_[0] eq 'HASH' ? shift : {};
    my @flags = ('--endpoints', $o->{endpoints} // $self->endpoints, '--dial-timeout', '2s',
                 '--command-timeout', ($o->{command_timeout} // $self->{command_timeout}) . 's');
    if ($self->{tls} && ($o->{certs} // 'right') ne 'none') {
        my $c = $self->certs($o->{certs});
        push @flags, '--cacert', $c->{cacert}, '--cert', $c->{cert}, '--key', $c->{key};
    }
    my $user = $o->{anonymous} ? undef : $o->{user} // ($self->{root_pw} ? "root:$self->{root_pw}" : undef);
    push @flags, '--user', $user if defined $user;
    my $t0 = time;
    my $r = run_cmd(['timeout', '-k', '5', $o->{timeout} // 30, $etcdctl, @flags, @_],
                    env => { ETCDCTL_API => '3', LD_PRELOAD => undef, OPENSSL_CONF => undef,
                             map { ($_ => undef) } qw(ETCDCTL_ENDPOINTS ETCDCTL_USER ETCDCTL_CACERT ETCDCTL_CERT ETCDCTL_KEY) });
    $r->{secs} = time - $t0;
    $r->{status} = 128 + $r->{signal} if $r->{signal};
    return $r;
}

# gateway($path, $json, [{ token, endpoint, certs }]): a POST to etcd's JSON gateway (etcd 3.4:
# /v3/kv/range, /v3/kv/put, /v3/kv/txn, /v3/auth/authenticate; keys and values base64) with the
# curl CLI: { code (HTTP status, 0 when no answer), body, err, status (curl's exit status) }.
sub curl_available { return system('sh', '-c', 'command -v curl >/dev/null 2>&1') == 0 }
sub gateway {
    my ($self, $path, $json, $o) = @_;
    $o //= {};
    my @tls;
    if ($self->{tls} && ($o->{certs} // 'right') ne 'none') {
        my $c = $self->certs($o->{certs});
        @tls = ('--cacert', $c->{cacert}, '--cert', $c->{cert}, '--key', $c->{key});
    }
    my $r = run_cmd(['curl', '-sS', '--max-time', $o->{timeout} // 10, @tls,
                     (defined $o->{token} ? ('-H', "Authorization: $o->{token}") : ()),
                     '-X', 'POST', '-d', $json, '-w', "\n%{http_code}", ($o->{endpoint} // $self->endpoint(0)) . $path],
                    env => { LD_PRELOAD => undef, OPENSSL_CONF => undef });
    my ($body, $code) = $r->{out} =~ /\A(.*)\n(\d{3})\z/s ? ($1, $2 + 0) : ($r->{out}, 0);
    return { code => $code, body => $body, err => $r->{err}, status => $r->{status} };
}
# A gateway token of user:password (POST /v3/auth/authenticate), or dies.
sub gateway_token {
    my ($self, $user, $pw, $o) = @_;
    my $r = $self->gateway('/v3/auth/authenticate', qq({"name":"$user","password":"$pw"}), $o);
    my ($token) = $r->{body} =~ /"token":"([^"]+)"/;
    die "EtcdCluster: authenticate $user: HTTP $r->{code} $r->{body}$r->{err}\n" unless $r->{code} == 200 && $token;
    return $token;
}

# { revision, cluster_id, member_id, leader, raft_term, raft_index } from `endpoint status -w json`
# of member i (default: the first one running), as decimal strings (ids are uint64: no floats).
sub status {
    my ($self, $i) = @_;
    $i //= (grep { $self->{members}[$_]{pid} } 0 .. $self->{n} - 1)[0] // 0;
    my $r = $self->etcdctl({ endpoints => $self->endpoint($i) }, 'endpoint', 'status', '-w', 'json');
    die "EtcdCluster: endpoint status of m$i failed: $r->{err}\n" if $r->{status} != 0;
    my %s;
    for my $f (qw(cluster_id member_id revision raft_term)) { ($s{$f}) = $r->{out} =~ /"\Q$f\E":(\d+)/ }
    ($s{leader}) = $r->{out} =~ /"leader":(\d+)/;
    ($s{raft_index}) = $r->{out} =~ /"raftIndex":(\d+)/;
    die "EtcdCluster: cannot read endpoint status: $r->{out}\n" unless defined $s{revision} && defined $s{cluster_id};
    return \%s;
}
# A leader change: `etcdctl move-leader` (sent to the leader) to another running member, which
# wins an election in a higher term. Returns the raft term after it (about a second).
sub move_leader {
    my ($self) = @_;
    my @run = grep { $self->{members}[$_]{pid} } 0 .. $self->{n} - 1;
    my %st = map { ($_ => $self->status($_)) } @run;
    my ($leader) = grep { $st{$_}{member_id} eq ($st{$_}{leader} // '') } @run;
    die "EtcdCluster: no leader among the running members\n" unless defined $leader;
    my ($to) = grep { $_ != $leader } @run or die "EtcdCluster: no other member to lead\n";
    my $r = $self->etcdctl({ endpoints => $self->endpoint($leader) }, 'move-leader', sprintf('%x', $st{$to}{member_id}));
    die "EtcdCluster: move-leader m$leader -> m$to failed: $r->{out}$r->{err}\n" if $r->{status} != 0;
    $self->wait_healthy(@run);
    return $self->status($to)->{raft_term};
}
sub revision { return $_[0]->status($_[1])->{revision} }

# The sum of the values of the /metrics lines (Prometheus text, from each running member's client
# URL, with curl) whose name and labels match $re: e.g. how many /v3/auth/authenticate calls the
# members served, qr/^grpc_server_started_total\{grpc_method="Authenticate"/ (the JSON gateway
# passes each on to the member's gRPC server). A member restarted counts from 0 again.
sub metric {
    my ($self, $re) = @_;
    my $sum = 0;
    for my $i (grep { $self->{members}[$_]{pid} } 0 .. $self->{n} - 1) {
        my @tls;
        if ($self->{tls}) { my $c = $self->certs; @tls = ('--cacert', $c->{cacert}, '--cert', $c->{cert}, '--key', $c->{key}) }
        my $r = run_cmd(['curl', '-sS', '--max-time', '10', @tls, $self->endpoint($i) . '/metrics'],
                        env => { LD_PRELOAD => undef, OPENSSL_CONF => undef });
        die "EtcdCluster: /metrics of m$i: $r->{err}\n" if $r->{status} != 0;
        for (split /\n/, $r->{out}) { $sum += $1 if $_ =~ $re && /\s(\d+(?:\.\d+)?)$/ }
    }
    return $sum;
}
sub cluster_id { return $_[0]->status($_[1])->{cluster_id} }

# undef once `endpoint health` passes for each member in @$idx (each asked on its own endpoint),
# else why not; at most `secs` seconds.
sub _wait_healthy {
    my ($self, $idx, $secs) = @_;
    my $deadline = time + $secs;
    my $why = 'not asked';
    while (time < $deadline) {
        for my $i (@$idx) {
            my $m = $self->{members}[$i];
            if (!$m->{pid}) { return "m$i is not running" }
            if (waitpid($m->{pid}, WNOHANG) == $m->{pid}) {
                delete $m->{pid};
                return "m$i exited (status $?)";
            }
        }
        my $r = $self->etcdctl({ endpoints => join(',', map { $self->endpoint($_) } @$idx), timeout => 10,
                                 command_timeout => 2 }, 'endpoint', 'health');
        return undef if $r->{status} == 0;
        $why = "endpoint health: $r->{out}$r->{err}";
        usleep(200_000);
    }
    return $why;
}

# wait_healthy(@idx): dies with the log tails unless those members (default all) are healthy
# within the cluster's timeout.
sub wait_healthy {
    my ($self, @idx) = @_;
    @idx = grep { $self->{members}[$_]{pid} } 0 .. $self->{n} - 1 unless @idx;
    my $why = $self->_wait_healthy(\@idx, $self->{timeout});
    die "EtcdCluster: members @idx not healthy within $self->{timeout} s: $why\n" . $self->log_tails if defined $why;
    return 1;
}

sub log_tails {
    my ($self, $lines) = @_;
    $lines //= 15;
    my $out = '';
    for my $m (@{ $self->{members} }) {
        next unless -e $m->{log};
        my @l = split /\n/, slurp($m->{log});
        splice @l, 0, @l - $lines if @l > $lines;
        $out .= "---- $m->{log} (last $lines lines)\n" . join("\n", @l) . "\n";
    }
    return $out;
}

# Reaps member i within `secs` (SIGKILL after that); 1 if it went by itself.
sub _reap {
    my ($self, $i, $secs) = @_;
    my $m = $self->{members}[$i];
    return 1 unless $m->{pid};
    my $deadline = time + ($secs // 5);
    while (time < $deadline) {
        if (waitpid($m->{pid}, WNOHANG) != 0) { delete $m->{pid}; return 1 }
        usleep(20_000);
    }
    CORE::kill('CONT', $m->{pid});
    CORE::kill('KILL', $m->{pid});
    waitpid($m->{pid}, 0);
    delete $m->{pid};
    return 0;
}

sub stop_member {
    my ($self, $i) = @_;
    my $m = $self->{members}[$i];
    return unless $m->{pid};
    CORE::kill('CONT', $m->{pid});   # a suspended member cannot act on SIGTERM
    CORE::kill('TERM', $m->{pid});
    return $self->_reap($i, 5);
}

sub kill_member {
    my ($self, $i) = @_;
    my $m = $self->{members}[$i];
    return unless $m->{pid};
    CORE::kill('KILL', $m->{pid});
    return $self->_reap($i, 5);
}

sub suspend_member { my ($self, $i) = @_; return CORE::kill('STOP', $self->{members}[$i]{pid} // return 0) }
sub resume_member { my ($self, $i) = @_; return CORE::kill('CONT', $self->{members}[$i]{pid} // return 0) }
sub running { my ($self, $i) = @_; return $self->{members}[$i]{pid} ? 1 : 0 }

sub start_member {
    my ($self, $i, %o) = @_;
    die "EtcdCluster: m$i is running\n" if $self->{members}[$i]{pid};
    $self->_spawn($i, 'existing');
    $self->wait_healthy($i) unless defined $o{wait} && !$o{wait};
    return 1;
}

# The hex member id of member i from `member list` (through the other running members).
sub member_id {
    my ($self, $i) = @_;
    my $r = $self->etcdctl({ endpoints => $self->_others($i) }, 'member', 'list');
    die "EtcdCluster: member list failed: $r->{err}\n" if $r->{status} != 0;
    my $name = $self->{members}[$i]{name};
    for (split /\n/, $r->{out}) {
        my @f = split /,\s*/;
        return $f[0] if @f >= 3 && $f[2] eq $name;
    }
    return undef;
}

sub _others {
    my ($self, $i) = @_;
    return join ',', map { $self->endpoint($_) } grep { $_ != $i && $self->{members}[$_]{pid} } 0 .. $self->{n} - 1;
}

# A membership change through the members other than i. etcd 3.4's strict reconfiguration check
# refuses one ("etcdserver: unhealthy cluster") until every other member has been connected to the
# leader for 5 s (etcdserver HealthInterval): right after a restart or SIGCONT. Retried for 20 s.
sub _reconfigure {
    my ($self, $i, @args) = @_;
    my $deadline = time + 20;
    while (1) {
        my $r = $self->etcdctl({ endpoints => $self->_others($i) }, @args);
        return $r if $r->{status} == 0 || $r->{err} !~ /unhealthy cluster/ || time > $deadline;
        usleep(250_000);
    }
}

sub remove_member {
    my ($self, $i) = @_;
    my $id = $self->member_id($i) // die "EtcdCluster: m$i is not a member\n";
    my $r = $self->_reconfigure($i, 'member', 'remove', $id);
    die "EtcdCluster: member remove m$i ($id) failed: $r->{err}\n" if $r->{status} != 0;
    $self->stop_member($i);
    remove_tree($self->{members}[$i]{data});
    $self->{members}[$i]{removed} = $id;
    # Removing the leader makes the others elect a new one first.
    $self->wait_healthy(grep { $_ != $i && $self->{members}[$_]{pid} } 0 .. $self->{n} - 1);
    return $id;
}

# member add with the same name and peer URL, then a start from an empty data dir; returns the
# new member id (hex).
sub add_member_again {
    my ($self, $i, %o) = @_;
    my $m = $self->{members}[$i];
    my $r = $self->_reconfigure($i, 'member', 'add', $m->{name}, "--peer-urls=$m->{peer_url}");
    die "EtcdCluster: member add m$i failed: $r->{err}\n" if $r->{status} != 0;
    my ($cluster) = $r->{out} =~ /ETCD_INITIAL_CLUSTER="([^"]*)"/ or die "EtcdCluster: member add said: $r->{out}\n";
    my ($id) = $r->{out} =~ /Member ([0-9a-f]+) added/;
    remove_tree($m->{data});
    delete $m->{removed};
    $self->_spawn($i, 'existing', initial_cluster => $cluster);
    $self->wait_healthy($i) unless defined $o{wait} && !$o{wait};
    return $id;
}

sub snapshot_save {
    my ($self, $file, $i) = @_;
    $i //= (grep { $self->{members}[$_]{pid} } 0 .. $self->{n} - 1)[0];
    my $r = $self->etcdctl({ endpoints => $self->endpoint($i) }, 'snapshot', 'save', $file);
    die "EtcdCluster: snapshot save failed: $r->{err}\n" if $r->{status} != 0 || !-s $file;
    return $file;
}

sub restore_from_snapshot {
    my ($self, $file) = @_;
    $self->_stop_all;
    my $gen = ++$self->{restores};
    for my $i (0 .. $self->{n} - 1) {
        my $m = $self->{members}[$i];
        remove_tree($m->{data});
        $m->{data} =~ s/(\.restored\d+)?$/.restored$gen/;
        my $r = run_cmd(['timeout', '-k', '5', '60', $etcdctl, 'snapshot', 'restore', $file, '--name', $m->{name},
                         '--data-dir', $m->{data}, '--initial-cluster', $self->{initial_cluster},
                         '--initial-cluster-token', $self->{token}, '--initial-advertise-peer-urls', $m->{peer_url}],
                        env => { ETCDCTL_API => '3', LD_PRELOAD => undef });
        die "EtcdCluster: snapshot restore for m$i failed: $r->{err}\n" if $r->{status} != 0;
    }
    # A restored data dir holds the member list: "existing" and "new" both start from it.
    $self->_spawn($_, 'existing') for 0 .. $self->{n} - 1;
    $self->wait_healthy(0 .. $self->{n} - 1);
    return 1;
}

# RBAC. Each returns the etcdctl result of its last command and dies when a step fails.
sub _admin {
    my ($self, @args) = @_;
    my $r = $self->etcdctl(@args);
    die "EtcdCluster: etcdctl @args[(ref $args[0] ? 1 : 0) .. $#args] failed: $r->{out}$r->{err}\n" if $r->{status} != 0;
    return $r;
}

sub enable_auth {
    my ($self, $root_pw) = @_;
    $self->_admin('user', 'add', "root:$root_pw");
    $self->_admin('user', 'grant-role', 'root', 'root');
    my $r = $self->_admin('auth', 'enable');
    $self->{root_pw} = $root_pw;
    return $r;
}

sub _user_with_role {
    my ($self, $user, $pw, $perm, $prefix) = @_;
    $self->_admin('user', 'add', "$user:$pw");
    $self->_admin('role', 'add', "$user-role");
    $self->_admin('role', 'grant-permission', '--prefix=true', "$user-role", $perm, $prefix);
    return $self->_admin('user', 'grant-role', $user, "$user-role");
}
sub add_signer { my ($self, $user, $pw, $prefix) = @_; return $self->_user_with_role($user, $pw, 'readwrite', $prefix) }
sub add_reader { my ($self, $user, $pw, $prefix) = @_; return $self->_user_with_role($user, $pw, 'read', $prefix) }

sub _stop_all {
    my ($self, $grace) = @_;
    my @run = grep { $self->{members}[$_]{pid} } 0 .. $self->{n} - 1;
    for my $i (@run) {
        CORE::kill('CONT', $self->{members}[$i]{pid});
        CORE::kill('TERM', $self->{members}[$i]{pid});
    }
    # 2 s: a leader left alone on SIGTERM keeps campaigning instead of exiting (etcd 3.4).
    $self->_reap($_, $grace // 2) for @run;
}

sub stop {
    my ($self) = @_;
    local $?;
    $self->_stop_all;
    @live = grep { defined && $_ != $self } @live;
}

sub DESTROY { local ($@, $!, $?); $_[0]->_stop_all }
END { local $?; $_->_stop_all for grep { defined } @live }

1;
