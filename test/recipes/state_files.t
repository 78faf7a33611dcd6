# The state file through the real openssl binary (docs/state.md §3, §4, §5, "Where the state lives"):
# missing, truncated, corrupt (one slot and both), foreign, copied, restored, symbolic links,
# group/other-writable directories, genpkey refusing to overwrite, and `openssl pkey -text`.
# Every case asserts the exit status and the provider's own error text.
use strict;
use warnings;
use Test::More;
use File::Copy qw(copy);
use Fcntl qw(SEEK_SET);
use KlmsTest;

my $dir = private_dir();
my $state_dir = "$dir/default-state";
mkdir $state_dir, 0700 or die;
$ENV{KLMS_STATE_DIR} = $state_dir;  # no $HOME dependency
my $msg = "$dir/msg.txt";
spew($msg, "a message for the state file recipes\n");

my $keyno = 0;
# A fresh H5 key (32 signatures) whose state file is `state` (default: <dir>/<name>.state).
sub genkey {
    my (%o) = @_;
    my $name = $o{name} // 'k' . ++$keyno;
    my $key = "$dir/$name.pem";
    my $state = $o{state} // "$dir/$name.state";
    my $r = openssl_st('genpkey', '-algorithm', 'HSS-LMS', '-pkeyopt', 'lms:LMS_SHA256_M32_H5',
                    '-pkeyopt', 'ots:LMOTS_SHA256_N32_W4', '-pkeyopt', "state-file:$state", '-out', $key);
    return { r => $r, key => $key, state => $state, name => $name };
}

# openssl pkeyutl -sign; { status, err, sig (bytes or ''), q }.
my $signo = 0;
sub sign {
    my ($key, @pkeyopt) = @_;
    return state_sign(key => $key, in => $msg, out => "$dir/sig" . ++$signo . '.bin', pkeyopt => \@pkeyopt);
}

sub verifies { my ($key, $sigfile) = @_; return state_verifies($key, $msg, $sigfile) }

# A refused signature: non-zero exit, the error text, and no signature bytes.
sub refused {
    my ($r, $re, $name) = @_;
    subtest $name => sub {
        isnt($r->{status}, 0, 'non-zero exit');
        like($r->{err}, $re, 'the error says why');
        is(length $r->{sig}, 0, 'no signature written');
    };
}

# Overwrites bytes of a file in place (same inode).
sub poke {
    my ($path, $offset, $bytes) = @_;
    open my $fh, '+<:raw', $path or die "$path: $!";
    sysseek($fh, $offset, SEEK_SET) or die;
    syswrite($fh, $bytes) == length $bytes or die;
    close $fh;
}

sub truncate_in_place {
    my ($path, $size) = @_;
    open my $fh, '+<:raw', $path or die "$path: $!";
    truncate($fh, $size) or die;
    close $fh;
}

sub inode { return (stat $_[0])[1] }

subtest 'a fresh key signs and klms-state / pkey -text show the state' => sub {
    my $k = genkey();
    is($k->{r}{status}, 0, 'genpkey') or diag $k->{r}{err};
    my @st = stat $k->{state};
    is($st[2] & 0777, 0600, 'state file is 0600');
    is($st[7], 8192, 'two 4 KiB blocks');
    my $ino = inode($k->{state});
    my $s = sign($k->{key});
    is($s->{status}, 0, 'signs') or diag $s->{err};
    is($s->{q}, 0, 'first index 0');
    is(inode($k->{state}), $ino, 'the state file was updated in place (same inode, docs/state.md §7)');
    ok(verifies($k->{key}, $s->{file}), 'verifies');
    my $info = state_show($k->{state});
    is($info->{status}, 0, 'klms-state show');
    is($info->{next}, 1, 'next 1');
    is($info->{max}, 32, 'max 32');
    is($info->{remaining}, 31, 'remaining 31');
    is($info->{copied}, 0, 'not copied');
    my $t = openssl_st('pkey', '-in', $k->{key}, '-text', '-noout');
    is($t->{status}, 0, 'pkey -text');
    like($t->{out}, qr/^state file: \Q$k->{state}\E$/m, 'shows the state file');
    like($t->{out}, qr/^state: ok$/m, 'state ok');
    like($t->{out}, qr/^next index: 1$/m, 'next index');
    like($t->{out}, qr/^remaining signatures: 31$/m, 'remaining');
    like($t->{out}, qr/^maximum signatures: 32$/m, 'maximum');
    like($t->{out}, qr/^seeded: no/m, 'not seeded');
};

subtest 'missing state file' => sub {
    my $k = genkey();
    is(sign($k->{key})->{status}, 0, 'signs while present');
    unlink $k->{state} or die;
    refused(sign($k->{key}), qr/state file missing/, 'refused when missing');
    ok(!-e $k->{state}, 'signing never creates the state file');
    my $t = openssl_st('pkey', '-in', $k->{key}, '-text', '-noout');
    is($t->{status}, 0, 'pkey -text still succeeds');
    like($t->{out}, qr/^state: missing$/m, 'and prints "state: missing"');
    my $info = state_show($k->{state});
    is($info->{status}, 1, 'klms-state show fails');
    like($info->{err}, qr/state file missing/, '... saying missing');
    # an override naming a file that does not exist never creates it either
    my $k2 = genkey();
    refused(sign($k2->{key}, "state-file:$dir/nowhere.state"), qr/state file missing/, 'override to a missing file');
    ok(!-e "$dir/nowhere.state", 'override did not create a file');
};

subtest 'truncated and overlong state files' => sub {
    my $k = genkey();
    is(sign($k->{key})->{status}, 0, 'signs');
    my $good = slurp($k->{state});
    for my $size (100, 4096, 0, 8191) {
        truncate_in_place($k->{state}, $size);
        refused(sign($k->{key}), qr/state file truncated/, "truncated to $size bytes");
        poke($k->{state}, 0, $good);  # back in place (same inode, same contents)
    }
    poke($k->{state}, 8192, "\0");
    refused(sign($k->{key}), qr/state file corrupt/, 'one byte too long');
    truncate_in_place($k->{state}, 8192);
    my $s = sign($k->{key});
    is($s->{status}, 0, 'signs again once intact') or diag $s->{err};
    is($s->{q}, 1, 'with the next index');
};

# Flips every bit of the byte at `offset`, in place (same inode).
sub flip_byte {
    my ($path, $offset) = @_;
    my $data = slurp($path);
    poke($path, $offset, chr(ord(substr($data, $offset, 1)) ^ 0xff));
}

subtest 'one damaged slot is normal, both are corrupt' => sub {
    my $k = genkey();
    my @q;
    for (1 .. 3) { my $s = sign($k->{key}); is($s->{status}, 0, 'signs'); push @q, $s->{q} }
    is_deeply(\@q, [0, 1, 2], 'indices 0..2');
    my $slots = state_slots($k->{state});
    is(scalar(grep { $_->{valid} } @{ $slots->{slots} }), 2, 'both slots valid');
    my $older = 1 - $slots->{current};
    is($slots->{slots}[ $slots->{current} ]{next}, 3, 'current slot: next 3');
    # What a crash in the middle of a slot write leaves: the slot being written (the older one) torn.
    poke($k->{state}, $older * 4096 + 24, "\xff\xff\xff\xff");
    $slots = state_slots($k->{state});
    ok(!$slots->{slots}[$older]{valid}, 'older slot damaged');
    my $s = sign($k->{key});
    is($s->{status}, 0, 'still signs with one slot damaged') or diag $s->{err};
    is($s->{q}, 3, 'from the intact current slot');
    ok(verifies($k->{key}, $s->{file}), 'verifies');
    $slots = state_slots($k->{state});
    is(scalar(grep { $_->{valid} } @{ $slots->{slots} }), 2, 'the write repaired the damaged block');
    is_deeply([ map { $_->{next} } @{ $slots->{slots} } ], [4, 4], 'both blocks now hold the new slot');

    # Both slots damaged: fail closed.
    flip_byte($k->{state}, 0 * 4096 + 40);
    flip_byte($k->{state}, 1 * 4096 + 40);
    refused(sign($k->{key}), qr/state file corrupt/, 'both slots damaged');
    my $t = openssl_st('pkey', '-in', $k->{key}, '-text', '-noout');
    is($t->{status}, 0, 'pkey -text succeeds');
    like($t->{out}, qr/^state: REFUSED FOR SIGNING: state file corrupt$/m, 'and says corrupt');
    is(state_show($k->{state})->{status}, 1, 'klms-state show refuses it');

    # Not a state file at all (no magic), of the right size.
    my $k2 = genkey();
    poke($k2->{state}, 0, 'x' x 8192);
    refused(sign($k2->{key}), qr/state file corrupt/, 'random bytes');
};

subtest 'foreign state file' => sub {
    my $a = genkey();
    my $b = genkey();
    my $before = slurp($b->{state});
    refused(sign($a->{key}, "state-file:$b->{state}"), qr/state file belongs to another key/, "another key's state file");
    is(slurp($b->{state}), $before, 'the other key\'s state is untouched');
    # Swapped under the key's own path.
    rename $a->{state}, "$dir/a-away.state" or die;
    link $b->{state}, $a->{state} or die;
    refused(sign($a->{key}), qr/state file belongs to another key/, 'another key\'s file at the key\'s path');
    unlink $a->{state};
    rename "$dir/a-away.state", $a->{state} or die;
    is(sign($a->{key})->{status}, 0, 'its own file back (same inode): signs');
};

subtest 'copied state files are not the original' => sub {
    my $k = genkey();
    is(sign($k->{key})->{status}, 0, 'signs');
    copy($k->{state}, "$dir/copy.state") or die;
    chmod 0600, "$dir/copy.state";
    refused(sign($k->{key}, "state-file:$dir/copy.state"), qr/state file copied, restored or moved/, 'cp to a new path');
    my $r = run_cmd_st(['cp', '--preserve=all', $k->{state}, "$dir/copy-preserved.state"]);
    is($r->{status}, 0, 'cp --preserve=all');
    refused(sign($k->{key}, "state-file:$dir/copy-preserved.state"), qr/state file copied, restored or moved/,
            'cp --preserve=all');
    my $e = run_cmd_st([tool('klms-evp-signer'), '--key', $k->{key}, '--in', $msg, '--state-file', "$dir/copy.state"]);
    isnt($e->{status}, 0, 'the EVP signer with --state-file copy fails too');
    like($e->{err}, qr/state file copied, restored or moved/, '... with the same error');
    my $info = state_show("$dir/copy.state");
    is($info->{status}, 1, 'klms-state show reads the copy, and exits 1: signing refuses it');
    is($info->{copied}, 1, '... and says it looks copied');
    my $s = sign($k->{key});
    is($s->{status}, 0, 'the original still signs');
    is($s->{q}, 1, 'with its own next index');
    # A hard link or a rename in the same file system is the same file.
    link $k->{state}, "$dir/hardlink.state" or die;
    my $h = sign($k->{key}, "state-file:$dir/hardlink.state");
    is($h->{status}, 0, 'a hard link is the same file') or diag $h->{err};
    is($h->{q}, 2, 'sharing the index');
};

subtest 'restored state files are refused' => sub {
    my $k = genkey();
    is(sign($k->{key})->{status}, 0, 'signs');
    run_cmd_st(['cp', '-p', $k->{state}, "$dir/backup.state"])->{status} == 0 or die;
    my $used = sign($k->{key});
    is($used->{q}, 1, 'signs index 1 after the backup');
    my $ino = inode($k->{state});

    # Restore by copying the backup to a temporary name and renaming it over the state file.
    copy("$dir/backup.state", "$dir/restore.tmp") or die;
    chmod 0600, "$dir/restore.tmp";
    rename "$dir/restore.tmp", $k->{state} or die;
    isnt(inode($k->{state}), $ino, 'new inode');
    refused(sign($k->{key}), qr/state file copied, restored or moved/, 'restored with rename');
    my $t = openssl_st('pkey', '-in', $k->{key}, '-text', '-noout');
    like($t->{out}, qr/^state: COPIED OR RESTORED/m, 'pkey -text warns');
    is(state_show($k->{state})->{copied}, 1, 'klms-state show: copied');

    # Restore by deleting and copying back: the inode number may well be reused (ext4, tmpfs), the
    # file handle (with its generation) is not.
    unlink $k->{state};
    copy("$dir/backup.state", $k->{state}) or die;
    chmod 0600, $k->{state};
    note('inode number ' . (inode($k->{state}) == $ino ? 'reused' : 'not reused'));
    refused(sign($k->{key}), qr/state file copied, restored or moved/, 'restored with rm + cp');
};

subtest 'genpkey refuses to overwrite a state file' => sub {
    my $k = genkey();
    is(sign($k->{key})->{status}, 0, 'signs');
    my $before = slurp($k->{state});
    my $again = genkey(name => 'overwrite', state => $k->{state});
    isnt($again->{r}{status}, 0, 'second genpkey on the same state file fails');
    like($again->{r}{err}, qr/state file already exists/, '... saying the state file exists');
    is(slurp($k->{state}), $before, 'state file unchanged');
    ok(!-s "$dir/overwrite.pem", 'no key written');
    is(sign($k->{key})->{q}, 1, 'the original key goes on');

    # A symbolic link (even a dangling one) at the path is not followed.
    symlink "$dir/target-does-not-exist.state", "$dir/dangling.state" or die;
    my $sym = genkey(name => 'dangling', state => "$dir/dangling.state");
    isnt($sym->{r}{status}, 0, 'genpkey onto a dangling symlink fails');
    like($sym->{r}{err}, qr/state file already exists/, '... as an existing file');
    ok(!-e "$dir/target-does-not-exist.state", 'the link target was not created');

    # A state file in a directory that does not exist: said so, before any hashing, nothing made.
    my $nodir = genkey(name => 'nodir', state => "$dir/no-such-dir/k.state");
    isnt($nodir->{r}{status}, 0, 'genpkey into a missing directory fails');
    like($nodir->{r}{err}, qr/state file directory does not exist/, '... saying the directory does not exist');
    ok(!-e "$dir/no-such-dir", 'no directory was created');
    ok(!-s "$dir/nodir.pem", 'no key written');
};

subtest 'state directories writable by group or others are refused' => sub {
    my $sub = "$dir/private";
    mkdir $sub, 0700 or die;
    my $k = genkey(name => 'dirkey', state => "$sub/dirkey.state");
    is($k->{r}{status}, 0, 'genpkey in a 0700 directory');
    for my $mode (0770, 0707, 0720, 0702) {
        chmod $mode, $sub or die;
        refused(sign($k->{key}), qr/state file or directory not private/, sprintf('directory mode %04o', $mode));
    }
    chmod 0700, $sub or die;
    is(sign($k->{key})->{status}, 0, 'signs again once private');

    chmod 0640, $k->{state};
    refused(sign($k->{key}), qr/state file or directory not private/, 'a group-readable state file (it could hold the lock)');
    chmod 0660, $k->{state};
    refused(sign($k->{key}), qr/state file or directory not private/, 'a group-writable state file');
    chmod 0600, $k->{state};

    my $open = "$dir/open";
    mkdir $open or die;
    chmod 0777, $open or die;
    my $g = genkey(name => 'openkey', state => "$open/openkey.state");
    isnt($g->{r}{status}, 0, 'genpkey into a 0777 directory fails');
    like($g->{r}{err}, qr/state file or directory not private/, '... as not private');
    ok(!-e "$open/openkey.state", 'nothing created');

    # The default state directory (KLMS_STATE_DIR) is checked the same way.
    local $ENV{KLMS_STATE_DIR} = $open;
    my $r = openssl_st('genpkey', '-algorithm', 'HSS-LMS', '-pkeyopt', 'lms:LMS_SHA256_M32_H5', '-out', "$dir/default.pem");
    isnt($r->{status}, 0, 'genpkey with KLMS_STATE_DIR group/other-writable fails');
    like($r->{err}, qr/not private/, '... as not private');
};

subtest 'symbolic links to state files are refused' => sub {
    my $k = genkey();
    is(sign($k->{key})->{status}, 0, 'signs');
    symlink $k->{state}, "$dir/link-to.state" or die;
    refused(sign($k->{key}, "state-file:$dir/link-to.state"), qr/state file or directory not private/,
            'override through a symlink');
    rename $k->{state}, "$dir/real.state" or die;
    symlink "$dir/real.state", $k->{state} or die;
    refused(sign($k->{key}), qr/state file or directory not private/, 'the key\'s own path is a symlink');
    unlink $k->{state};
    rename "$dir/real.state", $k->{state} or die;
    is(sign($k->{key})->{q}, 1, 'the real file back: index 1');
};

done_testing();
