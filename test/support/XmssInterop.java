// XMSS and XMSS^MT with BouncyCastle's own implementation (org.bouncycastle.pqc.crypto.xmss, the
// low-level API: BouncyCastle's key encodings carry its own OIDs, so keys and signatures cross as raw
// RFC 8391 bytes, as test/support/HssVerify.java does for HSS). One JVM start per direction:
//
//   java -cp /usr/share/java/bcprov.jar:. XmssInterop verify XMSS|XMSSMT PUBLIC-KEY MESSAGE SIGNATURE [...]
//       verifies one or more quadruples (scheme, raw public key u32 oid || root || SEED, message, raw
//       signature); prints "SIGNATURE: VERIFIED", "SIGNATURE: REJECTED" or "SIGNATURE: ERROR
//       <exception>" per quadruple; exit 0 when all verified, 2 when any was an error, else 1.
//   java ... XmssInterop sign XMSS|XMSSMT CODE MESSAGE OUT-PREFIX INDEX [...] [+ XMSS|XMSSMT CODE ...]
//       a fresh BouncyCastle key of the set with that registry code; writes OUT-PREFIX.pub (raw) and
//       OUT-PREFIX.INDEX.sig for each INDEX (increasing: BouncyCastle's key only moves forward, and
//       the indices in between are signed and dropped). Groups separated by "+" make several keys in one JVM.
// BouncyCastle 1.72 (Debian 12) knows RFC 8391's sets (codes 0x01-0x0C for XMSS, 0x01-0x20 for
// XMSS^MT) and none of SP 800-208's n = 24 or SHAKE256/256 sets.
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.SecureRandom;

import org.bouncycastle.crypto.AsymmetricCipherKeyPair;
import org.bouncycastle.pqc.crypto.xmss.XMSSKeyGenerationParameters;
import org.bouncycastle.pqc.crypto.xmss.XMSSKeyPairGenerator;
import org.bouncycastle.pqc.crypto.xmss.XMSSMTKeyGenerationParameters;
import org.bouncycastle.pqc.crypto.xmss.XMSSMTKeyPairGenerator;
import org.bouncycastle.pqc.crypto.xmss.XMSSMTParameters;
import org.bouncycastle.pqc.crypto.xmss.XMSSMTPrivateKeyParameters;
import org.bouncycastle.pqc.crypto.xmss.XMSSMTPublicKeyParameters;
import org.bouncycastle.pqc.crypto.xmss.XMSSMTSigner;
import org.bouncycastle.pqc.crypto.xmss.XMSSParameters;
import org.bouncycastle.pqc.crypto.xmss.XMSSPrivateKeyParameters;
import org.bouncycastle.pqc.crypto.xmss.XMSSPublicKeyParameters;
import org.bouncycastle.pqc.crypto.xmss.XMSSSigner;

public final class XmssInterop {
    private XmssInterop() {}

    static int codeOf(byte[] publicKey) {
        return ByteBuffer.wrap(publicKey, 0, 4).getInt();
    }

    // root || SEED after the 4-byte code; BouncyCastle's builders take them apart.
    static byte[] part(byte[] publicKey, int from, int n) {
        byte[] out = new byte[n];
        System.arraycopy(publicKey, from, out, 0, n);
        return out;
    }

    static boolean verify(boolean mt, byte[] pk, byte[] message, byte[] signature) {
        int code = codeOf(pk);
        if (mt) {
            XMSSMTParameters p = XMSSMTParameters.lookupByOID(code);
            if (p == null) throw new IllegalArgumentException("BouncyCastle has no XMSS^MT set with code " + code);
            int n = p.getTreeDigestSize();
            if (pk.length != 4 + 2 * n) throw new IllegalArgumentException("public key of " + pk.length + " bytes");
            XMSSMTPublicKeyParameters key = new XMSSMTPublicKeyParameters.Builder(p)
                .withRoot(part(pk, 4, n)).withPublicSeed(part(pk, 4 + n, n)).build();
            XMSSMTSigner signer = new XMSSMTSigner();
            signer.init(false, key);
            return signer.verifySignature(message, signature);
        }
        XMSSParameters p = XMSSParameters.lookupByOID(code);
        if (p == null) throw new IllegalArgumentException("BouncyCastle has no XMSS set with code " + code);
        int n = p.getTreeDigestSize();
        if (pk.length != 4 + 2 * n) throw new IllegalArgumentException("public key of " + pk.length + " bytes");
        XMSSPublicKeyParameters key = new XMSSPublicKeyParameters.Builder(p)
            .withRoot(part(pk, 4, n)).withPublicSeed(part(pk, 4 + n, n)).build();
        XMSSSigner signer = new XMSSSigner();
        signer.init(false, key);
        return signer.verifySignature(message, signature);
    }

    static byte[] rawPublicKey(int code, byte[] root, byte[] seed) {
        return ByteBuffer.allocate(4 + root.length + seed.length).putInt(code).put(root).put(seed).array();
    }

    // One index spent by signing and dropping the signature: BouncyCastle 1.72's getNextKey did not
    // come back (more than 15 CPU minutes for XMSS-SHA2_10_256 1 -> 7 and XMSSMT-SHA2_20/4_256 0 -> 31).
    static XMSSPrivateKeyParameters spend(XMSSPrivateKeyParameters key, byte[] message) {
        XMSSSigner signer = new XMSSSigner();
        signer.init(true, key);
        signer.generateSignature(message);
        return (XMSSPrivateKeyParameters) signer.getUpdatedPrivateKey();
    }

    static XMSSMTPrivateKeyParameters spend(XMSSMTPrivateKeyParameters key, byte[] message) {
        XMSSMTSigner signer = new XMSSMTSigner();
        signer.init(true, key);
        signer.generateSignature(message);
        return (XMSSMTPrivateKeyParameters) signer.getUpdatedPrivateKey();
    }

    static void sign(boolean mt, int code, byte[] message, String prefix, long[] indices) throws Exception {
        SecureRandom random = new SecureRandom();
        if (mt) {
            XMSSMTParameters p = XMSSMTParameters.lookupByOID(code);
            XMSSMTKeyPairGenerator g = new XMSSMTKeyPairGenerator();
            g.init(new XMSSMTKeyGenerationParameters(p, random));
            AsymmetricCipherKeyPair pair = g.generateKeyPair();
            XMSSMTPublicKeyParameters pub = (XMSSMTPublicKeyParameters) pair.getPublic();
            Files.write(Paths.get(prefix + ".pub"), rawPublicKey(code, pub.getRoot(), pub.getPublicSeed()));
            XMSSMTPrivateKeyParameters key = (XMSSMTPrivateKeyParameters) pair.getPrivate();
            for (long index : indices) {
                while (key.getIndex() < index) key = spend(key, message);
                XMSSMTSigner signer = new XMSSMTSigner();
                signer.init(true, key);
                Files.write(Paths.get(prefix + "." + index + ".sig"), signer.generateSignature(message));
                key = (XMSSMTPrivateKeyParameters) signer.getUpdatedPrivateKey();
            }
            return;
        }
        XMSSParameters p = XMSSParameters.lookupByOID(code);
        XMSSKeyPairGenerator g = new XMSSKeyPairGenerator();
        g.init(new XMSSKeyGenerationParameters(p, random));
        AsymmetricCipherKeyPair pair = g.generateKeyPair();
        XMSSPublicKeyParameters pub = (XMSSPublicKeyParameters) pair.getPublic();
        Files.write(Paths.get(prefix + ".pub"), rawPublicKey(code, pub.getRoot(), pub.getPublicSeed()));
        XMSSPrivateKeyParameters key = (XMSSPrivateKeyParameters) pair.getPrivate();
        for (long index : indices) {
            while (key.getIndex() < index) key = spend(key, message);
            XMSSSigner signer = new XMSSSigner();
            signer.init(true, key);
            Files.write(Paths.get(prefix + "." + index + ".sig"), signer.generateSignature(message));
            key = (XMSSPrivateKeyParameters) signer.getUpdatedPrivateKey();
        }
    }

    static void usage() {
        System.err.println("usage: XmssInterop verify XMSS|XMSSMT PUBLIC-KEY MESSAGE SIGNATURE [XMSS|XMSSMT ...]\n"
                           + "       XmssInterop sign XMSS|XMSSMT CODE MESSAGE OUT-PREFIX INDEX [...] [+ ...]");
        System.exit(2);
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 5 || !(args[1].equals("XMSS") || args[1].equals("XMSSMT"))) usage();
        if (args[0].equals("sign")) {
            for (int from = 1; from < args.length;) {
                int to = from;
                while (to < args.length && !args[to].equals("+")) ++to;
                if (to - from < 5 || !(args[from].equals("XMSS") || args[from].equals("XMSSMT"))) usage();
                long[] indices = new long[to - from - 4];
                for (int i = from + 4; i < to; ++i) indices[i - from - 4] = Long.parseLong(args[i]);
                sign(args[from].equals("XMSSMT"), Integer.decode(args[from + 1]),
                     Files.readAllBytes(Paths.get(args[from + 2])), args[from + 3], indices);
                from = to + 1;
            }
            return;
        }
        if (!args[0].equals("verify") || (args.length - 1) % 4 != 0) usage();
        int status = 0;
        for (int i = 1; i < args.length; i += 4) {
            String result;
            try {
                boolean valid = verify(args[i].equals("XMSSMT"), Files.readAllBytes(Paths.get(args[i + 1])),
                                       Files.readAllBytes(Paths.get(args[i + 2])), Files.readAllBytes(Paths.get(args[i + 3])));
                result = valid ? "VERIFIED" : "REJECTED";
                if (!valid) status = Math.max(status, 1);
            } catch (Exception | Error e) {  // BouncyCastle throws unchecked exceptions on what it cannot read
                result = "ERROR " + e.getClass().getName() + ": " + e.getMessage();
                status = 2;
            }
            System.out.println(args[i + 3] + ": " + result);
        }
        System.exit(status);
    }
}
