"""Published JT/T 808 frames used as test fixtures, each with where it was published.

"Device capture" marks frames that the publishing project took from real terminals (traccar's
protocol tests are built from traffic users sent in; the others say so in their context).
"Library-built" frames were produced by another implementation's encoder: still an
independent check of the byte layout, but not a device.

Sources (commit of the file that was read):
* [TRC] traccar/traccar ``src/test/java/org/traccar/protocol/Jt808ProtocolDecoderTest.java``
  @ 083ed8edc3820be42bc98f8f5ea23f277002b297 (device captures).
* [SCR] SmallChi/JT808 ``README.md`` ("手动解包" worked example) and
  ``src/JT808.Protocol.Test/MessageBody/JT808_0x0102Test.cs`` @ 1924e87f (library-built);
  the "2013 force" frame is from SmallChi/JT808 ``simples`` web demo (``JT8082013ForceHexData``).
* [GOJ] cuteLittleDevil/go-jt808 ``protocol/model/parse_test.go`` @ 01bba0df and
  ``protocol/model/t_0x0200_addition_extensions_test.go`` @ 793aa843 (the 0x0200 with a
  Su-standard 0x64 ADAS item is a terminal capture from 2024-11-27; the rest library-built).
* [FXF] a 2019 0x0200 capture pasted in a public gateway scratch file
  (``com.hzz.hzzcloud...报文解析/main.java``, "2020/12/3", package ``net.fxft.gateway``).
* [XTR] hylexus/xtream-codec docs, ``BuiltinMsg0200Test`` 2019 example (library-built).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    name: str
    source: str
    hex: str

    @property
    def frame(self) -> bytes:
        return bytes.fromhex(self.hex)


SAMPLES = {
    s.name: s
    for s in (
        # ------------------------------------------------------------------ 2013 / 2011 headers
        Sample(
            "smallchi_0200_escaped",
            "[SCR] README worked example: serial 126 and fuel 125 are both escaped",
            "7E0200002612345678901200 7D02 000000010000000200BA7F0E07E4F11C0028003C0000181015101010"
            "0104000000640202007D01137E",
        ),
        Sample(
            "traccar_0200_south_west",
            "[TRC] device capture, Paraguay: south + west status bits, vendor items 0xD4.. kept raw",
            "7e0200004d794308010679013800000000022c004e01819568036ef38c005c00120000251118112611d40164d50201a2"
            "30011d31010cf40104f9020007fe0400000090fd0a02e8000400044a150fe6ef014a0b062200623a4965977e",
        ),
        Sample(
            "traccar_0200_tacho",
            "[TRC] device capture with items 0x01, 0x02, 0x03",
            "7E0200002A013833501744001900000000000000C201597FA806CC01580080000000081508180721210104000002F5"
            "02020000030200009F7E",
        ),
        Sample(
            "traccar_0200_io",
            "[TRC] device capture with items 0x01, 0x2A, 0x30, 0x31",
            "7e0200002c00160128561400020000000000040001005de1f7065c6cef00000000000017011710044201040000a900"
            "2a02000030011b3101030c7e",
        ),
        Sample("traccar_0002", "[TRC] device capture: heartbeat", "7e0002000004304832546500b7ca7e"),
        Sample(
            "traccar_0100_2013",
            "[TRC] device capture: registration, GBK plate 苏BA6860",
            "7E0100002D013511221122000500000000373031303748422D52303347424400000000000000000000003233363631"
            "303402CBD5424136383630387E",
        ),
        Sample(
            "traccar_0102_2013",
            "[TRC] device capture: authentication code 'authentication'",
            "7E0102000E013511221122000661757468656E7469636174696F6E3F7E",
        ),
        Sample(
            "traccar_0702_2013",
            "[TRC] device capture: IC card inserted, certificate 0029b885, no expiry",
            "7e0702002201827061151401bc012510091507510000303032396238383500000000000000000000000000000000002b7e",
        ),
        Sample(
            "traccar_0107_2013",
            "[TRC] device capture: terminal attributes, ICCID 89883030000131882455",
            "7e0107004904546000563500030000584300000043354c00000000000000000000000000000000003938383731323589"
            "883030000131882455001943354c5f56322e3620323032362f30362f30342031353a33310301f47e",
        ),
        Sample(
            "traccar_0704_blind_zone",
            "[TRC] device capture: 8 backfilled positions (type 1)",
            "7E0704014301356777777707F5000801002600000000000000030159741206CBFD500172000000011605270906240104"
            "0000001D03020000002600000000000000030159746606CBFD50016B0000000116052709065301040000001D030200"
            "00002600000000000000030159 75E406CBFE58013F0000000116052709072701040000001D03020000002600000000"
            "000000030159 76DE06CBFF10012E0000000116052709075601040000001D0302000000260000000000000003015976"
            "BC06CBFED0012D0000000116052709083001040000001D0302000000260000000000000003015976FE06CBFEC00108"
            "0000000116052709090001040000001D0302000000260000000000000003015976FE06CBFE7800FC00000001160527"
            "09093301040000001D0302000000260000000000000003015977A606CBFF3001080000000116052709100201040000"
            "001D030200001F7E",
        ),
        Sample(
            "traccar_0900",
            "[TRC] device capture: pass-through type 0x40 carrying a text record",
            "7e0900001b41305888975883194000184754534c7c367c317c307c31303231383039347c317c0d0ab47e",
        ),
        Sample(
            "traccar_bad_escape",
            "[TRC] test frame containing '7d A0' (not a valid escape)",
            "7E0200008201215233475100030000000000000003015A7F6106CF8CEC003D0000000021071311481901040000005630"
            "011931011AE10200755D3D0601CC0024990A7dA0032301CC002499099B2941FC01CC002499099B29430B01CC002499"
            "0A7dA0290601CC0024990A7dA015FD01CC0026220994506BFFFE157C010400000001F10C0000000000000000000000"
            "00997E",
        ),
        Sample(
            "smallchi_0102_2013",
            "[SCR] JT808_0x0102Test.Test3: auth code 456121111, serial 12345",
            "7E010200090123456789003039343536313231313131BE7E",
        ),
        Sample(
            "smallchi_2013_force",
            "[SCR] demo 'JT8082013ForceHexData': version bit set on a 2013 header",
            "7e0102400c01003000068109024a3130303330303030363831857e",
        ),
        Sample(
            "gojt808_0100_2011",
            "[GOJ] T0x0100 2011 registration (library-built)",
            "7e010000200123456789010000001f007363640000007777772e3830382e3736353433323101b2e24131323334a17e",
        ),
        Sample(
            "gojt808_8001_2013",
            "[GOJ] P0x8001 platform reply (library-built)",
            "7e8001000501234567890100007fff0002008e7e",
        ),
        Sample(
            "gojt808_8100_2013",
            "[GOJ] P0x8100 registration reply with auth code 12345678901 (library-built)",
            "7e8100000e01234567890100000000003132333435363738393031377e",
        ),
        # ------------------------------------------------------------------ 2019 headers
        Sample(
            "traccar_0100_2019",
            "[TRC] device capture: 2019 registration of an MD300, terminal id = IMEI",
            "7e0100405c010000086649607758216452180000000000000000000000000000004d4433303000000000000000000000"
            "000000000000000000000000000000383636343936303737353832313634000000000000000000000000000000040000"
            "00000000000000000000000000007a7e",
        ),
        Sample(
            "traccar_0704_2019",
            "[TRC] device capture: 2019 batch with one position, 14 satellites",
            "7e0704402d0100000866496077582164881d0001000028000000000000000701a00192091f2a470016000000022605091642"
            "2701040000258230010031010e507e",
        ),
        Sample(
            "gojt808_0200_2019_adas",
            "[GOJ] 2019 position with 1078/ADAS items; its header length byte is escaped (7D 02)",
            "7E0200407D0201000000000202326095590A4F00002000004C100301E0D7F2073E6EAC00640214001424112715423001"
            "04000000CC020201D425040000000030010831010914040000007F150400000001160400000001170200011803000709"
            "642F0000001F000201323201000035006401E0D40A073E6AC4241127154210FFFF696430303030332411271542170005"
            "00767E",
        ),
        Sample(
            "fxft_0200_2019",
            "[FXF] 2019 device capture with 0x2B analog and 1078 items",
            "7E0200404E0100000000040620020586004300000000000C0003023DD3CB067CB9A3052B00000055201203160406010400"
            "011BE9030200002504000000002B040000000030011F310114140400000000150400000000160400000000170200000E7E",
        ),
        Sample(
            "gojt808_0102_2019",
            "[GOJ] T0x0102 2019 authentication with IMEI and software version (library-built)",
            "7e0102402f010000000001729984173800000b3137323939383431373338313233343536373839303132333435332e37"
            "2e31350000000000000000000000000000227e",
        ),
        Sample(
            "gojt808_8001_2019",
            "[GOJ] reply_test result2019 for an 0x0102 (library-built)",
            "7e80014005010000000001729984173800000000010200877e",
        ),
        Sample(
            "xtream_0200_2019",
            "[XTR] 2019 position with alarm bits 20 and 21 set (library-built)",
            "7E0200402D01000000000139123443210000003000000040000101CD41C2072901B00929029A005A2304282131410104"
            "0000029B0202004303020309300163897E",
        ),
    )
}


def sample(name: str) -> bytes:
    return SAMPLES[name].frame
