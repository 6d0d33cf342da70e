import { Button } from 'antd';
import { IdcardOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useAccess } from '../../access/useAccess';
import { PILOT_EDIT_PATH } from '../../resources/driver/paths';

/** 司机列表 → 新增司机(含卡): the driver's own page, with cards, face photo and app account (/add/pilot). */
export function FullAddButton() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { canDo } = useAccess();
  if (!canDo('driver', 'add')) return null;
  return (
    <Button type="primary" ghost icon={<IdcardOutlined />} onClick={() => void navigate(PILOT_EDIT_PATH)} data-testid="pilot-add">
      {t('driver.fullAdd')}
    </Button>
  );
}
