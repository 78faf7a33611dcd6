# SwTpm: a real software TPM 2.0 (Debian's swtpm) for the witness recipes, on a Unix socket in the
# test's own directory; started, stopped, killed and restarted by the tests themselves, every wait
# bounded. The TCTI string tpm2-tss takes for it is `swtpm:path=<dir>/tpm.sock` (the control
# channel is `<path>.ctrl`, as tcti-swtpm expects).
#
#   my $tpm = SwTpm->start($dir);   # dies when swtpm cannot start
#   $tpm->tcti; $tpm->env;          # { KLMS_TPM_TCTI => ... }
#   $tpm->stop;                     # orderly: TPM2_Shutdown(CLEAR), then terminate
#   $tpm->crash;                    # SIGKILL: no orderly shutdown (orderly counters jump forward)
#   $tpm->start_again;              # the same TPM state directory
package SwTpm;
use strict;
use warnings;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(usleep);

sub available { return system('sh', '-c', 'command -v swtpm >/dev/null 2>&1 && command -v tpm2_shutdown >/dev/null 2>&1') == 0 }

sub start {
    my ($class, $dir) = @_;
    my $self = bless { dir => $dir, state => "$dir/tpm-state", sock => "$dir/tpm.sock" }, $class;
    mkdir $self->{state}, 0700 unless -d $self->{state};
    $self->start_again;
    return $self;
}

sub tcti { return "swtpm:path=$_[0]{sock}" }
sub env { return { KLMS_TPM_TCTI => $_[0]->tcti } }
sub pid { return $_[0]{pid} }

sub start_again {
    my ($self) = @_;
    unlink $self->{sock}, "$self->{sock}.ctrl";
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open STDIN, '<', '/dev/null';
        open STDOUT, '>>', "$self->{dir}/swtpm.log";
        open STDERR, '>&', \*STDOUT;
        exec 'swtpm', 'socket', '--tpm2', '--tpmstate', "dir=$self->{state}", '--server',
             "type=unixio,path=$self->{sock}", '--ctrl', "type=unixio,path=$self->{sock}.ctrl", '--flags',
             'not-need-init,startup-clear';
        exit 127;
    }
    $self->{pid} = $pid;
    for (1 .. 200) {  # at most 10 s
        return $self if -S $self->{sock} && -S "$self->{sock}.ctrl";
        die "swtpm exited at start (see $self->{dir}/swtpm.log)" if waitpid($pid, WNOHANG) == $pid;
        usleep(50_000);
    }
    CORE::kill('KILL', $pid);
    die 'swtpm did not open its sockets within 10 s';
}

sub _reap {
    my ($self) = @_;
    for (1 .. 200) {
        if (waitpid($self->{pid}, WNOHANG) == $self->{pid}) { delete $self->{pid}; return 1 }
        usleep(50_000);
    }
    CORE::kill('KILL', $self->{pid});
    waitpid($self->{pid}, 0);
    delete $self->{pid};
    return 0;
}

# An orderly shutdown: the TPM saves its orderly counters, as at a clean power-off.
sub stop {
    my ($self) = @_;
    return unless $self->{pid};
    local $ENV{TPM2TOOLS_TCTI} = $self->tcti;
    system('timeout', '10', 'tpm2_shutdown', '-c');
    CORE::kill('TERM', $self->{pid});
    $self->_reap;
}

sub crash {
    my ($self) = @_;
    return unless $self->{pid};
    CORE::kill('KILL', $self->{pid});
    $self->_reap;
}

sub suspend { CORE::kill('STOP', $_[0]{pid}) }
sub resume { CORE::kill('CONT', $_[0]{pid}) }

sub DESTROY {
    my ($self) = @_;
    if ($self->{pid}) { CORE::kill('KILL', $self->{pid}); waitpid($self->{pid}, 0) }
}

1;
